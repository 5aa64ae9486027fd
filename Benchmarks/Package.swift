// swift-tools-version: 6.1
// Benchmarks live in their own package so that the library stays free of dependencies: this one
// depends on the root package by path and, for comparison only, on GRDB.
import PackageDescription

let package = Package(
    name: "VariablyBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "VariablyCodable", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // The C floor: SQLite driven from plain C, the bar the Swift variants are measured against.
        .target(name: "SQLiteFloor", linkerSettings: [.linkedLibrary("sqlite3")]),
        // Starts and stops callgrind's counting around one variant (`--variant`), when run under valgrind.
        .target(name: "CallgrindControl"),
        .executableTarget(
            name: "VariablyBenchmarks",
            dependencies: [
                .product(name: "VariablyCodable", package: "VariablyCodable"),
                .product(name: "VariablySQLite", package: "VariablyCodable"),
                .product(name: "VariablyHTTP", package: "VariablyCodable"),
                .product(name: "VariablySync", package: "VariablyCodable"),
                .product(name: "VariablySyncTesting", package: "VariablyCodable"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "SQLiteFloor",
                "CallgrindControl",
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

// The repository's sync against a naive Codable + one-INSERT-per-record pipeline, with memory; moved out
// of the UserSync sample. Added apart so that it needs none of the main target's dependencies.
package.targets.append(
    .executableTarget(
        name: "NaivePipelineBenchmark",
        dependencies: [
            .product(name: "VariablyCodable", package: "VariablyCodable"),
            .product(name: "VariablySQLite", package: "VariablyCodable"),
            .product(name: "VariablySync", package: "VariablyCodable"),
            .product(name: "VariablySyncTesting", package: "VariablyCodable"),
        ]
    ))

// A release client for Benchmarks/scripts/drf-first-sync.py: a first sync and a push against the tests'
// Django REST Framework server, timed. Not run by CI.
package.targets.append(
    .executableTarget(
        name: "DRFClient",
        dependencies: [
            .product(name: "VariablyCodable", package: "VariablyCodable"),
            .product(name: "VariablySQLite", package: "VariablyCodable"),
            .product(name: "VariablySync", package: "VariablyCodable"),
        ]
    ))
