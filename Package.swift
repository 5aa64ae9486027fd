// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "VariablyCodable",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "VariablyCodable", targets: ["VariablyCodable"]),
        .library(name: "VariablySQLite", targets: ["VariablySQLite"]),
        .library(name: "VariablyHTTP", targets: ["VariablyHTTP"]),
        .library(name: "VariablySync", targets: ["VariablySync"]),
        .library(name: "VariablyCodableTesting", targets: ["VariablyCodableTesting"]),
        .library(name: "VariablySyncTesting", targets: ["VariablySyncTesting"]),
        .executable(name: "UserSync", targets: ["UserSync"]),
    ],
    targets: [
        .target(name: "VariablyCodable", swiftSettings: strict),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(name: "VariablySQLite", dependencies: ["VariablyCodable", "CSQLite"], swiftSettings: strict),
        // The system libcurl seam, for the Linux transport (see `CurlLibrary` for why it is linked).
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .yum(["libcurl-devel"])]),
        // The network: the transport seam, its errors, URLSession, libcurl on Linux; it knows nothing of
        // the sync layer.
        .target(
            name: "VariablyHTTP", dependencies: [.target(name: "CCurl", condition: .when(platforms: [.linux]))],
            swiftSettings: strict),
        .target(
            name: "VariablySync", dependencies: ["VariablyCodable", "VariablySQLite", "VariablyHTTP"],
            swiftSettings: strict),
        .target(name: "VariablyCodableTesting", dependencies: ["VariablyCodable"], swiftSettings: strict),
        // The in-process simulated server: for tests, demos and benchmarks, not linked by apps.
        .target(name: "VariablySyncTesting", dependencies: ["VariablyCodable", "VariablySQLite", "VariablySync"], swiftSettings: strict),
        // The example domain (users, posts, comments): one declaration that the sample, the tests, the
        // benchmarks and the fuzz harnesses share. Not a product: apps do not link it.
        .target(
            name: "UserSyncModels", dependencies: ["VariablyCodable", "VariablySQLite"], path: "Samples/UserSyncModels",
            swiftSettings: strict),
        .executableTarget(
            name: "UserSync",
            dependencies: ["VariablyCodable", "VariablySQLite", "VariablySync", "VariablySyncTesting", "UserSyncModels"],
            path: "Samples/UserSync", swiftSettings: strict),
        .target(
            name: "VariablyTestSupport", dependencies: ["VariablyCodable", "UserSyncModels"],
            path: "Tests/VariablyTestSupport",
            swiftSettings: strict),
        .testTarget(
            name: "VariablyCodableTests",
            dependencies: ["VariablyCodable", "VariablyCodableTesting", "VariablyTestSupport", "UserSyncModels"],
            swiftSettings: strict),
        .testTarget(
            name: "VariablySQLiteTests",
            dependencies: ["VariablySQLite", "VariablyTestSupport", "UserSyncModels"],
            swiftSettings: strict),
        .testTarget(
            name: "VariablyHTTPTests", dependencies: ["VariablyHTTP", "VariablyTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "VariablySyncTests",
            dependencies: [
                "VariablySync", "VariablySyncTesting", "VariablySQLite", "VariablyHTTP", "VariablyTestSupport", "UserSyncModels",
            ],
            // A cache written by an earlier version, for the upgrade test; the program that wrote it is
            // kept beside it as text.
            exclude: ["Engine/State/Fixtures/MakeCacheFixture.swift", "Engine/State/Fixtures/README.md"],
            resources: [.copy("Engine/State/Fixtures/cache-84401b4.db")],
            swiftSettings: strict),
        .testTarget(
            name: "VariablySyncTestingTests",
            dependencies: ["VariablySync", "VariablySyncTesting", "VariablyTestSupport", "UserSyncModels"],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
