import Foundation
import Testing

// Statements about the repository that a check can catch when they go stale: every relative link in
// the README, CONTRIBUTING.md and docs/ leads to a file or folder that exists, every `#anchor` in such
// a link names a heading of its document, and every path or file name those documents and the comments
// of Sources/ and Samples/ mention (`docs/http.md`, `Tests/RELIABILITY.md`, `Engine/PullEngine.swift`)
// is one the repository has.

@Suite struct DocumentationLinkTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Mentions of files that are not the repository's: other projects' files, a pattern the text
    /// spells out, a file the text says was removed.
    static let notOurs: Set<String> = [
        "Type+Feature.swift",  // CONTRIBUTING.md: the naming pattern of extension files
        "FoundationEssentials/CodableUtilities.swift",  // swift-foundation's, quoted in docs/reliability.md
        "Benchmarks/inflate-speed",  // docs/benchmarks.md: named as removed
    ]

    /// Every file and folder of the repository, relative to its root, without build products.
    static let repositoryPaths: Set<String> = {
        var paths: Set<String> = []
        let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        let prefix = root.standardizedFileURL.path + "/"
        while let url = enumerator?.nextObject() as? URL {
            let path = String(url.standardizedFileURL.path.dropFirst(prefix.count))
            paths.insert(path)
        }
        return paths
    }()

    static var documents: [String] {
        let guides =
            (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        return ["README.md", "CONTRIBUTING.md"] + guides.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    @Test(arguments: documents)
    func everyLinkLeadsToAFileAndEveryAnchorToAHeading(document: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
        let folder = (document as NSString).deletingLastPathComponent
        for target in Self.matches(of: #"\]\(([^)\s]+)\)"#, in: text) {
            if target.range(of: "^[a-z]+:", options: .regularExpression) != nil { continue }  // https:, mailto:
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let path = parts[0].isEmpty ? document : Self.normalized(folder, String(parts[0]))
            guard Self.exists(path) else {
                Issue.record("\(document): the link \(target) leads to \(path), which the repository does not have")
                continue
            }
            if parts.count == 2, path.hasSuffix(".md") {
                let anchor = String(parts[1])
                let headings = try Self.anchors(of: path)
                #expect(headings.contains(anchor), "\(document): the link \(target) names no heading of \(path)")
            }
        }
        for path in Self.mentionedPaths(in: text, folder: folder) {
            #expect(Self.exists(path), "\(document) mentions \(path), which the repository does not have")
        }
    }

    @Test func everyPathACommentMentionsExists() throws {
        let files = Self.repositoryPaths.filter {
            ($0.hasPrefix("Sources/") || $0.hasPrefix("Samples/")) && $0.hasSuffix(".swift")
        }
        #expect(!files.isEmpty)
        for file in files.sorted() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("//") else { continue }
                for path in Self.mentionedPaths(in: trimmed, folder: "") {
                    #expect(
                        Self.exists(path), "\(file):\(number + 1) mentions \(path), which the repository does not have")
                }
            }
        }
    }

    // MARK: - Reading mentions

    /// The paths `text` mentions: those from a top-level folder (`docs/http.md`, `Tests/RELIABILITY.md`)
    /// as written, and file names alone or under a folder (`PullEngine.swift`, `Engine/PullEngine.swift`),
    /// relative to `folder` or found anywhere in the repository. Build products (`.build`) and
    /// placeholders (`Tests/<Module>Tests`) are left out.
    static func mentionedPaths(in text: String, folder: String) -> [String] {
        var paths: [String] = []
        let rooted = matches(
            of: #"(?<![\w./-])((?:docs|Tests|Sources|Samples|Scripts|Benchmarks|Fuzz)/[\w+./-]*)(?![\w<*{])"#, in: text)
        for match in rooted {
            var path = match
            while path.hasSuffix(".") { path.removeLast() }
            if path.contains("/.build") || notOurs.contains(path) { continue }
            paths.append(path)
        }
        for name in matches(of: #"(?<![\w/.+-])([\w+-]+(?:/[\w+-]+)*\.(?:md|swift))\b"#, in: text) {
            if name.range(of: "^(docs|Tests|Sources|Samples|Scripts|Benchmarks|Fuzz)/", options: .regularExpression)
                != nil
                || notOurs.contains(name)
            {
                continue
            }
            let relative = normalized(folder, name)
            if exists(relative) { continue }
            paths.append(repositoryPaths.first { $0 == name || $0.hasSuffix("/" + name) } ?? name)
        }
        return paths
    }

    /// The GitHub anchors of a Markdown document's headings: lowercased, punctuation but `-` and `_`
    /// removed, spaces as `-`; headings inside fenced code are not headings.
    static func anchors(of document: String) throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        var anchors: Set<String> = []
        var isInFence = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") {
                isInFence.toggle()
                continue
            }
            guard !isInFence, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.replacingOccurrences(of: #"[^\w\- ]"#, with: "", options: .regularExpression)
            anchors.insert(kept.replacingOccurrences(of: " ", with: "-"))
        }
        return anchors
    }

    static func matches(of pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else {
            Issue.record("not a regular expression: \(pattern)")
            return []
        }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    static func normalized(_ folder: String, _ path: String) -> String {
        var parts: [Substring] = folder.isEmpty ? [] : folder.split(separator: "/")
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }

    static func exists(_ path: String) -> Bool {
        var path = path
        while path.hasSuffix("/") { path.removeLast() }
        return path.isEmpty || repositoryPaths.contains(path)
    }
}
