import Foundation
import Testing

// The README's install line is what a fresh Linux machine needs to build the package: it names every
// apt package that Package.swift's system-library targets list in their `.apt([...])` providers, plus
// pkg-config, which SwiftPM runs to find a target's `pkgConfig:` library, and nothing else. CI installs
// the build's packages by running that line (.ci/run), so a package the line forgets fails there too.
// CONTRIBUTING.md and docs/getting-started.md repeat the line and must name the same packages.

@Suite struct ReadmeInstallLineTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The documents that repeat the README's install line.
    static let repeatingDocuments = ["CONTRIBUTING.md", "docs/getting-started.md"]

    @Test func theReadmeInstallLineNamesEveryPackageThePackageManifestNeeds() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let needed = Self.aptPackages(inManifest: manifest)
        #expect(needed.contains("libsqlite3-dev"), "Package.swift's apt providers were not found")
        let lines = try Self.installLines(inCodeBlocksOf: "README.md")
        try #require(
            lines.count == 1,
            "README.md needs exactly one line beginning with `apt-get install` or `sudo apt-get install` in a code block; it has \(lines.count)"
        )
        let named = Self.packages(inInstallLine: lines[0])
        for package in needed.subtracting(named).sorted() {
            Issue.record("README.md's install line does not name \(package), which Package.swift lists")
        }
        for package in named.subtracting(needed).sorted() {
            Issue.record("README.md's install line names \(package), which Package.swift does not list")
        }
    }

    @Test(arguments: repeatingDocuments)
    func aDocumentThatRepeatsTheInstallLineNamesTheSamePackages(document: String) throws {
        let readme = try #require(try Self.installLines(inCodeBlocksOf: "README.md").first)
        let expected = Self.packages(inInstallLine: readme)
        let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
        let mentions = Self.matches(of: #"`((?:sudo )?apt-get install [^`]+)`"#, in: text)
        #expect(!mentions.isEmpty, "\(document) does not repeat the README's install line")
        for mention in mentions {
            let named = Self.packages(inInstallLine: mention)
            for package in expected.subtracting(named).sorted() {
                Issue.record("\(document): `\(mention)` does not name \(package), which README.md's line names")
            }
            for package in named.subtracting(expected).sorted() {
                Issue.record("\(document): `\(mention)` names \(package), which README.md's line does not")
            }
        }
    }

    // MARK: - Reading the manifest and the documents

    /// The packages of every `.apt([...])` provider list, and pkg-config when a target has `pkgConfig:`.
    static func aptPackages(inManifest manifest: String) -> Set<String> {
        var packages: Set<String> = []
        for list in matches(of: #"\.apt\(\[([^\]]*)\]\)"#, in: manifest) {
            packages.formUnion(matches(of: #""([^"]+)""#, in: list))
        }
        if manifest.contains("pkgConfig:") { packages.insert("pkg-config") }
        return packages
    }

    /// The lines of `document`'s fenced code blocks that begin with `apt-get install` or
    /// `sudo apt-get install`.
    static func installLines(inCodeBlocksOf document: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        var isInBlock = false
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                isInBlock.toggle()
            } else if isInBlock, trimmed.hasPrefix("apt-get install ") || trimmed.hasPrefix("sudo apt-get install ") {
                lines.append(trimmed)
            }
        }
        return lines
    }

    /// The package names of an install line: its words after `install` that are not options, up to
    /// a comment.
    static func packages(inInstallLine line: String) -> Set<String> {
        let command = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let words = command.split(separator: " ").map(String.init)
        guard let install = words.firstIndex(of: "install") else { return [] }
        return Set(words[(install + 1)...].filter { !$0.hasPrefix("-") })
    }

    /// The first capture group of every match of `pattern`.
    static func matches(of pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
