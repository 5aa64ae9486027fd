import Foundation
import Testing

// Every test target runs in one process, where two models whose tables share a name (SQLite names
// ignore case) trap as soon as both are used, if one is named after its type: in whichever order the
// tests happen to run. This check finds such a pair in the sources, before a run order does.

@Suite struct TestTableNameTests {
    /// Types that one test file names alike on purpose, to check that the second one used throws: each
    /// counts once, so that a type of that name elsewhere is still found.
    static let deliberatelyAlike: Set<String> = ["DeclarationErrorTests.swift: Memo"]

    @Test func noTypeNamedTableSharesItsNameWithAnotherTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        var explicit: [String: [String]] = [:]
        var namedAfterType: [String: [String]] = [:]
        let files =
            FileManager.default.enumerator(at: root.appendingPathComponent("Tests"), includingPropertiesForKeys: nil)?
            .allObjects.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 50, "the scan found no test sources")
        let declared = try NSRegularExpression(pattern: #"SQLiteTable<([A-Za-z.]+)>\(\s*"([^"]+)""#)
        let storable = try NSRegularExpression(
            pattern:
                #"(?:struct|class)\s+(\w+)\s*:[^{]*\bSQLiteStorable\b|extension\s+(\w+)\s*:[^{]*\bSQLiteStorable\b"#)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            var typesWithTables: Set<String> = []
            for match in declared.matches(in: text, range: range) {
                let type = String(text[Range(match.range(at: 1), in: text)!])
                let name = String(text[Range(match.range(at: 2), in: text)!]).lowercased()
                typesWithTables.insert(String(type.split(separator: ".").last!))
                explicit[name, default: []].append("\(file.lastPathComponent): \(type)")
            }
            for match in storable.matches(in: text, range: range) {
                let group = match.range(at: 1).location != NSNotFound ? 1 : 2
                let type = String(text[Range(match.range(at: group), in: text)!])
                let place = "\(file.lastPathComponent): \(type)"
                let seen = namedAfterType[type.lowercased()] ?? []
                if !typesWithTables.contains(type), !(Self.deliberatelyAlike.contains(place) && seen.contains(place)) {
                    namedAfterType[type.lowercased(), default: []].append(place)
                }
            }
        }
        for (name, types) in namedAfterType {
            let others = types.dropFirst() + (explicit[name] ?? [])
            #expect(
                others.isEmpty,
                "the table \"\(name)\" of \(types[0]) is also the table of \(others.joined(separator: ", "))")
        }
    }
}
