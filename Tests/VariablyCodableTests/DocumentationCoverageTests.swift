import Foundation
import Testing

// Every Swift example in the docs must be compiled somewhere: each ```swift block's code lines appear,
// in order, in one Swift file of Tests/ (an example test) or Sources/ (a declaration the docs quote).
// Comments, blank lines, indentation, a leading `private` and a leading `_ = ` (how a test keeps an
// expression the docs show bare) are ignored, so a test may wrap an example in a function and add
// lines between its lines. Output belongs in ```text blocks.

@Suite struct DocumentationCoverageTests {
    /// The documents checked; add one here when its examples are compiled in a test.
    static let documents = [
        "docs/key-sets.md", "docs/toolkit.md", "docs/fast-json.md", "docs/sqlite.md", "docs/getting-started.md",
        "docs/sync.md", "docs/observation.md", "docs/http.md", "docs/relationships.md", "README.md",
    ]

    @Test(arguments: documents)
    func everySwiftExampleIsCompiledInATestOrQuotesTheSources(document: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        let files = try Self.swiftFiles(under: [
            root.appendingPathComponent("Tests"), root.appendingPathComponent("Sources"),
        ])
        .map { try Self.codeLines(String(contentsOf: $0, encoding: .utf8)) }
        let blocks = Self.swiftBlocks(in: text)
        #expect(!blocks.isEmpty, "\(document) has no Swift example")
        for (number, block) in blocks.enumerated() {
            let lines = Self.codeLines(block)
            // A package manifest fragment: SwiftPM's API, not the library's.
            if block.hasPrefix("// Package.swift") { continue }
            let stops = files.map { Self.firstMissingLine(of: lines, in: $0) }
            if !stops.contains(where: { $0 == nil }) {
                let best = stops.compactMap { $0 }.max() ?? 0
                let place = "\(document), Swift example \(number + 1)"
                Issue.record(
                    "\(place): no Swift file under Tests/ or Sources/ has its lines in order; the best match stops at \(lines[best])"
                )
            }
        }
    }

    /// The text of each ```swift block.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil {
                if line.trimmingCharacters(in: .whitespaces) == "```swift" { current = [] }
            } else if line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current!.append(line)
            }
        }
        return blocks
    }

    /// The lines that are code: trimmed, without `//` comments, `private` or blank lines.
    static func codeLines(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            var code = line.trimmingCharacters(in: .whitespaces)
            if code.hasPrefix("//") { return nil }
            if let comment = code.range(of: #"\s+//\s.*$"#, options: .regularExpression) {
                code = String(code[..<comment.lowerBound])
            }
            for modifier in ["private ", "fileprivate ", "_ = "] where code.hasPrefix(modifier) {
                code.removeFirst(modifier.count)
            }
            return code.isEmpty ? nil : code
        }
    }

    /// The index in `lines` of the first line that `file` lacks (looking in order), or `nil` if it has
    /// them all.
    static func firstMissingLine(of lines: [String], in file: [String]) -> Int? {
        var position = file.startIndex
        for (index, line) in lines.enumerated() {
            guard let found = file[position...].firstIndex(of: line) else { return index }
            position = found + 1
        }
        return nil
    }

    static func swiftFiles(under folders: [URL]) throws -> [URL] {
        folders.flatMap { folder -> [URL] in
            let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
            return (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
        }
    }
}
