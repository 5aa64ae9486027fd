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
        .library(name: "VariablyCodableTesting", targets: ["VariablyCodableTesting"]),
    ],
    targets: [
        .target(name: "VariablyCodable", swiftSettings: strict),
        .target(name: "VariablyCodableTesting", dependencies: ["VariablyCodable"], swiftSettings: strict),
        .testTarget(
            name: "VariablyCodableTests",
            dependencies: ["VariablyCodable", "VariablyCodableTesting"],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
