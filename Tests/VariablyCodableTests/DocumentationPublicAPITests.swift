import Foundation
import Testing

// The doc examples are compiled by this package's tests, which see `package` declarations too; an
// app does not. So the examples of README.md and docs/ must not reach a name that the sources
// declare `package` and never `public`: not as a member (`container.keySet`), not as a type
// (`KeyEntry`). Argument labels (`style:`) and key paths (`\.name`) are the model's or the call's,
// and are not checked.

@Suite struct DocumentationPublicAPITests {
    @Test func examplesUseOnlyPublicDeclarations() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let sources = try DocumentationCoverageTests.swiftFiles(under: [root.appendingPathComponent("Sources")])
            .map { try String(contentsOf: $0, encoding: .utf8) }
        let packageOnly = Self.packageOnlyNames(in: sources)
        #expect(
            packageOnly.contains("KeyEntry") && packageOnly.contains("withoutDateStrategy"),
            "the scan finds no package declarations")
        let documents = ["README.md"] + DocumentationCoverageTests.documents
        for document in documents {
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            for (number, block) in DocumentationCoverageTests.swiftBlocks(in: text).enumerated() {
                for name in Self.names(usedIn: block)
                where packageOnly.contains(name) && !Self.foundationNames.contains(name) {
                    Issue.record("\(document), Swift example \(number + 1) uses `\(name)`, which is not public")
                }
            }
        }
    }

    /// The examples in the doc comments of public declarations are what DocC shows users: the same rule.
    @Test func docCommentExamplesOfPublicDeclarationsUseOnlyPublicDeclarations() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let files = try DocumentationCoverageTests.swiftFiles(under: [root.appendingPathComponent("Sources")])
        let sources = try files.map { try String(contentsOf: $0, encoding: .utf8) }
        let packageOnly = Self.packageOnlyNames(in: sources)
        var checked = 0
        for (file, source) in zip(files, sources) {
            var comment: [String] = []
            for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("///") {
                    comment.append(String(trimmed.dropFirst(3).drop { $0 == " " }))
                    continue
                }
                defer { comment = [] }
                guard !comment.isEmpty,
                    trimmed.range(of: #"^(@\w+\s+)*(public|open)\s"#, options: .regularExpression) != nil
                else { continue }
                for block in DocumentationCoverageTests.swiftBlocks(in: comment.joined(separator: "\n")) {
                    checked += 1
                    for name in Self.names(usedIn: block)
                    where packageOnly.contains(name) && !Self.foundationNames.contains(name) {
                        Issue.record(
                            "\(file.lastPathComponent), the example before `\(trimmed.prefix(60))` uses `\(name)`, which is not public"
                        )
                    }
                }
            }
        }
        #expect(checked > 100, "the scan finds no doc-comment examples")
    }

    /// The sample is what users copy, and it is compiled inside the package too: the same rule.
    @Test func theSampleUsesOnlyPublicDeclarations() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let sources = try DocumentationCoverageTests.swiftFiles(under: [root.appendingPathComponent("Sources")])
            .map { try String(contentsOf: $0, encoding: .utf8) }
        let packageOnly = Self.packageOnlyNames(in: sources)
        let files = try DocumentationCoverageTests.swiftFiles(under: [root.appendingPathComponent("Samples")])
        #expect(!files.isEmpty, "no sample sources found")
        let samples = try files.map { try String(contentsOf: $0, encoding: .utf8) }
        let ownNames = Self.declaredNames(in: samples)
        for (file, sample) in zip(files, samples) {
            for name in Self.names(usedIn: sample)
            where packageOnly.contains(name) && !ownNames.contains(name) && !Self.foundationNames.contains(name) {
                Issue.record("\(file.lastPathComponent) uses `\(name)`, which is not public")
            }
        }
    }

    /// Every name a file declares, whatever its access (`func`, `var`, `let`, types, cases).
    static func declaredNames(in sources: [String]) -> Set<String> {
        let declaration = try! NSRegularExpression(
            pattern: #"\b(?:func|var|let|class|struct|enum|protocol|actor|typealias|case)\s+`?(\w+)"#)
        var names: Set<String> = []
        for source in sources {
            for match in declaration.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                names.insert(String(source[Range(match.range(at: 1), in: source)!]))
            }
        }
        return names
    }

    /// Names of package declarations that Foundation's or the standard library's public API also has
    /// (`decoder.container(keyedBy:)`, `Duration.components`).
    static let foundationNames: Set<String> = ["container", "components"]

    /// The names declared `package` and never `public`, `open` or as an enum case.
    static func packageOnlyNames(in sources: [String]) -> Set<String> {
        let declaration = try! NSRegularExpression(
            pattern:
                #"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(package|public|open)\s+(?:(?:static|final|override|mutating|nonisolated|convenience|indirect|lazy|class|required)\s+)*(?:(?:private|internal|fileprivate)\(set\)\s+)?(?:func|var|let|class|struct|enum|protocol|actor|typealias)\s+`?(\w+)"#,
            options: .anchorsMatchLines)
        let enumCase = try! NSRegularExpression(pattern: #"^\s*case\s+(\w+)"#, options: .anchorsMatchLines)
        var package: Set<String> = []
        var visible: Set<String> = []
        for source in sources {
            let range = NSRange(source.startIndex..., in: source)
            for match in declaration.matches(in: source, range: range) {
                let access = String(source[Range(match.range(at: 1), in: source)!])
                let name = String(source[Range(match.range(at: 2), in: source)!])
                if access == "package" { package.insert(name) } else { visible.insert(name) }
            }
            for match in enumCase.matches(in: source, range: range) {
                visible.insert(String(source[Range(match.range(at: 1), in: source)!]))
            }
        }
        return package.subtracting(visible)
    }

    /// Members reached with a dot after an expression (`a.b`, `f().b`, `x?.b`; not `\.b` nor `.b:`),
    /// and capitalized names (types).
    static func names(usedIn code: String) -> Set<String> {
        // A string literal's text is data, not names: `"application/vnd.api+json"` reaches no `api`.
        let lines = DocumentationCoverageTests.codeLines(code).joined(separator: "\n")
            .replacingOccurrences(of: #""(?:[^"\\\n]|\\.)*""#, with: #""""#, options: .regularExpression)
        let member = try! NSRegularExpression(pattern: #"(?<=[\w\)\]\?!])\.(\w+)\b(?!\s*:)"#)
        let type = try! NSRegularExpression(pattern: #"\b([A-Z]\w*)\b"#)
        var names: Set<String> = []
        for expression in [member, type] {
            for match in expression.matches(in: lines, range: NSRange(lines.startIndex..., in: lines)) {
                names.insert(String(lines[Range(match.range(at: 1), in: lines)!]))
            }
        }
        return names
    }
}
