import Foundation
import Testing
import UserSyncModels
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// Built with reflection metadata disabled (`-disable-reflection-metadata`, as some release
// configurations are), Swift prints `\User.userName` as `\User.<offset 8 (String)>`: key styles have
// no property name to derive keys from. These tests build a small program against the library that
// way, in a temporary package, and run it: fully explicit key sets must code as usual, and a styled
// key set must report a problem (which `validate()`, `migrate` and `Repository.open` throw) that names
// the fix.

@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: ReflectionFreeBuild.swift != nil, "the swift toolchain is not on PATH"),
    .enabled(
        if: ProcessInfo.processInfo.environment["VARIABLY_SKIP_TOOLCHAIN_BUILDS"] == nil,
        "VARIABLY_SKIP_TOOLCHAIN_BUILDS is set")
)
struct ReflectionFreeBuildTests {
    @Test func explicitKeySetsCodeWithoutReflectionMetadataAndStyledOnesNameTheFix() async throws {
        let build = try await ReflectionFreeBuild.make()
        defer { build.remove() }

        let explicit = try await build.run("explicit")
        #expect(explicit.status == 0, "the explicit key sets failed: \(explicit.error)")
        let lines = explicit.output.split(separator: "\n").map(String.init)
        // Proof that the build has no property names, else this test shows nothing.
        #expect(lines.first == #"\User.<offset 8 (String)>"#)
        #expect(lines.dropFirst().first == #"{"id":7,"profile":{"nick":"A"},"user_name":"ada"}"#)
        #expect(lines.dropFirst(2).first == "decoded ada A, fast ada A")

        let styled = try await build.run("styled")
        #expect(styled.status != 0)
        #expect(styled.error.contains("Cannot derive a key for \\Styled.<offset 0 (String)> in the remote key set"))
        #expect(styled.error.contains("built without reflection metadata"))
        #expect(styled.error.contains("Give every key of `KeySet(.remote)` an explicit name"))
    }
}

/// A temporary package holding the library's sources and a small program, built with reflection
/// metadata disabled.
struct ReflectionFreeBuild {
    let folder: URL
    let executable: URL

    /// The `swift` driver on PATH, if any.
    static let swift: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    static func make() async throws -> ReflectionFreeBuild {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reflection-free-\(UUID().uuidString)")
        let sources = folder.appendingPathComponent("Sources")
        try FileManager.default.createDirectory(
            at: sources.appendingPathComponent("Check"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: sources.appendingPathComponent("VariablyCodable"),
            withDestinationURL: root.appendingPathComponent("Sources/VariablyCodable"))
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("Package.swift"))
        try Data(program.utf8).write(to: sources.appendingPathComponent("Check/main.swift"))
        let build = ReflectionFreeBuild(
            folder: folder, executable: folder.appendingPathComponent(".build/debug/Check"))
        let result = try await run(
            URL(fileURLWithPath: swift!),
            ["build", "--package-path", folder.path, "-Xswiftc", "-disable-reflection-metadata"],
            timeout: .seconds(540))
        if result.status != 0 {
            build.remove()
            throw BuildFailure(log: result.output + result.error)
        }
        return build
    }

    struct BuildFailure: Error, CustomStringConvertible {
        let log: String
        var description: String { "the reflection-free build failed:\n\(log)" }
    }

    func run(_ mode: String) async throws -> (status: Int32, output: String, error: String) {
        try await Self.run(executable, [mode], timeout: .seconds(60))
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs `executable` to its end, or kills it after `timeout`.
    private static func run(_ executable: URL, _ arguments: [String], timeout: Duration) async throws
        -> (status: Int32, output: String, error: String)
    {
        // Files, not pipes: a full pipe would block the child.
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reflection-free-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let outputURL = logs.appendingPathComponent("out"), errorURL = logs.appendingPathComponent("err")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let output = try FileHandle(forWritingTo: outputURL), error = try FileHandle(forWritingTo: errorURL)
        let child = try ChildProcess(
            executable: executable.path, arguments: arguments,
            standardOutput: output.fileDescriptor, standardError: error.fileDescriptor)
        try output.close()
        try error.close()
        let termination = await child.exit(within: timeout)
        if termination == .signaled(SIGKILL) {
            Issue.record("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) ran over \(timeout)")
        }
        let status: Int32
        if case .exited(let code) = termination { status = code } else { status = -1 }
        return (
            status, try String(contentsOf: outputURL, encoding: .utf8),
            try String(contentsOf: errorURL, encoding: .utf8)
        )
    }

    private static let manifest = """
        // swift-tools-version: 6.0
        import PackageDescription

        let package = Package(
            name: "ReflectionFreeCheck",
            targets: [
                .target(
                    name: "VariablyCodable",
                    swiftSettings: [
                        .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault"),
                    ]),
                .executableTarget(name: "Check", dependencies: ["VariablyCodable"]),
            ],
            swiftLanguageModes: [.v6]
        )
        """

    private static let program = #"""
        import Foundation
        import VariablyCodable

        struct User: VariablyCodable, EmptyInitializable {
            var id: Int64 = 0
            var userName = ""
            var nickname: String?

            static let keySets = KeySets<User>(defaultSource: .remote) {
                KeySet(.remote) {
                    Key(\.id, "id")
                    Key(\.userName, ["user_name", "username"])
                    Key(\.nickname, "profile.nick")
                }
                KeySet(.sqlite, style: .snakeCase) {    // a style with nothing left to derive
                    Key(\.id, "id")
                    Key(\.userName, "user_name")
                    Key(\.nickname, "nickname")
                }
            }
        }

        struct Styled: VariablyCodable, EmptyInitializable {
            var userName = ""

            static let keySets = KeySets<Styled>(defaultSource: .remote) {
                KeySet(.remote, style: .snakeCase) { Key(\.userName) }
            }
        }

        if CommandLine.arguments.contains("styled") {
            do {
                try Styled.keySets.validate()
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                exit(1)
            }
        } else {
            print("\(\User.userName)")
            let data = Data(#"{"id":7,"username":"ada","profile":{"nick":"A"}}"#.utf8)
            let user = try JSONDecoder().decode(User.self, from: data)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            print(String(decoding: try encoder.encode(user), as: UTF8.self))
            let fast = try KeySetJSONDecoder().decode(User.self, from: data)
            print("decoded \(user.userName) \(user.nickname ?? "-"), fast \(fast.userName) \(fast.nickname ?? "-")")
        }
        """#
}
