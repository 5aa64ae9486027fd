import Foundation

/// Reads a key set's entries from one JSON object on a ``JSONDocument``'s tape, for a
/// ``DecodingContainer``: the fast counterpart of `FoundationDecodingBackend`, with the same rules
/// (alternatives tried in order, nested objects that are missing, `null` or something other than an
/// object count as absent for the paths through them) and the same errors.
final class JSONObjectBackend: KeySetDecodingBackend {
    let session: JSONDecodingSession
    let table: KeyTable
    private let layout: KeyTableLayout
    private let document: JSONDocument
    /// The tape index of the object.
    private var object = 0
    private var base: CodingPathNode?
    private var baseTail = PathTail.none
    /// Per slot of the table, the tape index of the value, or -1.
    private let slots: UnsafeMutablePointer<Int32>
    /// Per nested object of the layout: -2 not looked up yet, -1 absent, -3 not an object, else its
    /// tape index.
    private let containers: UnsafeMutablePointer<Int32>
    private let containerCount: Int

    init(session: JSONDecodingSession, table: KeyTable) {
        self.session = session
        self.table = table
        layout = table.layout
        document = session.document
        slots = .allocate(capacity: max(table.layout.slotCount, 1))
        containerCount = table.layout.containerPaths.count
        containers = .allocate(capacity: max(containerCount, 1))
    }

    deinit {
        slots.deallocate()
        containers.deallocate()
    }

    /// Points the backend at the object at tape `index`, whose coding path is `base` + `baseTail`.
    @inline(__always)
    func start(object index: Int, base: CodingPathNode?, baseTail: PathTail) {
        object = index
        self.base = base
        self.baseTail = baseTail
        for container in 0..<containerCount { containers[container] = -2 }
        table.match(document, object: index, scope: 0, into: slots)
    }

    /// Drops the references to the path, before the backend waits for reuse.
    func finish() {
        base = nil
        baseTail = .none
    }

    var codingPath: [any CodingKey] { ValuePath(base, baseTail).codingPath }

    var userInfo: [CodingUserInfoKey: Any] { session.userInfo }

    func contains(entry index: Int) -> Bool {
        let direct = layout.directSlots[index]
        if direct >= 0 { return slots[direct] >= 0 }
        return (try? locate(entry: index)) != nil
    }

    func decode<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value {
        let direct = layout.directSlots[index]
        if direct >= 0 {
            let valueIndex = Int(slots[direct])
            guard valueIndex >= 0 else {
                let key = layout.firstLeafKeys[index]
                throw DecodingError.keyNotFound(
                    key,
                    DecodingError.Context(
                        codingPath: codingPath, debugDescription: "No value associated with key \"\(key.stringValue)\"."
                    ))
            }
            return try decodeValue(Value.self, entry: index, at: valueIndex, alternative: -1)
        }
        guard let (valueIndex, alternative) = try locate(entry: index) else { throw keyNotFound(entry: index) }
        return try decodeValue(Value.self, entry: index, at: valueIndex, alternative: alternative)
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, entry index: Int) throws -> Value? {
        let direct = layout.directSlots[index]
        let valueIndex: Int
        let alternative: Int
        if direct >= 0 {
            valueIndex = Int(slots[direct])
            guard valueIndex >= 0 else { return nil }
            alternative = -1
        } else {
            guard let (found, foundAlternative) = try locate(entry: index) else { return nil }
            (valueIndex, alternative) = (found, foundAlternative)
        }
        if document[valueIndex].kindBits == JSONKind.null.rawValue { return nil }
        return try decodeValue(Value.self, entry: index, at: valueIndex, alternative: alternative)
    }

    // The common scalars through the generic reads above, specialized here: called from a container
    // specialized for the model, they leave no generic call on the way to the tape.

    func decodeString(entry index: Int) throws -> String { try decode(String.self, entry: index) }
    func decodeInt(entry index: Int) throws -> Int { try decode(Int.self, entry: index) }
    func decodeInt64(entry index: Int) throws -> Int64 { try decode(Int64.self, entry: index) }
    func decodeDouble(entry index: Int) throws -> Double { try decode(Double.self, entry: index) }
    func decodeBool(entry index: Int) throws -> Bool { try decode(Bool.self, entry: index) }
    func decodeDate(entry index: Int) throws -> Date { try decode(Date.self, entry: index) }

    /// Reads the common scalars straight from the tape when the value has the expected kind; anything
    /// else (and every error) goes through the session with the value's coding path.
    @inline(__always)
    private func decodeValue<Value: Decodable>(
        _ type: Value.Type, entry index: Int, at valueIndex: Int, alternative: Int
    )
        throws -> Value
    {
        let kind = document[valueIndex].kindBits
        if Value.self == String.self && kind == JSONKind.string.rawValue {
            return unsafeBitCast(document.string(at: valueIndex), to: Value.self)
        }
        if kind == JSONKind.number.rawValue {
            if Value.self == Int.self {
                return unsafeBitCast(try document.integer(Int.self, at: valueIndex), to: Value.self)
            }
            if Value.self == Int64.self {
                return unsafeBitCast(try document.integer(Int64.self, at: valueIndex), to: Value.self)
            }
            if Value.self == Double.self { return unsafeBitCast(try document.double(at: valueIndex), to: Value.self) }
            if Value.self == Date.self {
                return unsafeBitCast(
                    Date(timeIntervalSinceReferenceDate: try document.double(at: valueIndex)), to: Value.self)
            }
        }
        if Value.self == Bool.self {
            if kind == JSONKind.true.rawValue { return unsafeBitCast(true, to: Value.self) }
            if kind == JSONKind.false.rawValue { return unsafeBitCast(false, to: Value.self) }
        }
        if Value.self == [String].self && kind == JSONKind.array.rawValue,
            let strings = document.strings(at: valueIndex)
        {
            return unsafeBitCast(strings, to: Value.self)
        }
        let tail: PathTail =
            alternative < 0 ? .key(layout.firstLeafKeys[index]) : .keys(layout.alternativeKeys[alternative])
        let path = ValuePath(base, baseTail, tail)
        if let model = layout.modelTypes[index], ObjectIdentifier(Value.self) == layout.storedTypes[index] {
            return try decodeNestedModel(model, entry: index, at: valueIndex, path: path) as! Value
        }
        return try session.decodeValue(Value.self, at: valueIndex, path: path)
    }

    private func decodeNestedModel<Model: VariablyDecodable>(
        _ type: Model.Type, entry index: Int, at valueIndex: Int, path: ValuePath
    ) throws -> Model {
        let child: KeyTable
        if let table = table.childTables[index] {
            child = table
        } else {
            child = try session.table(for: Model.self, codingPath: path.codingPath)
            table.childTables[index] = child
        }
        return try session.decodeModel(Model.self, table: child, at: valueIndex, base: path.node(), baseTail: .none)
    }

    private func keyNotFound(entry index: Int) -> DecodingError {
        let start = layout.alternativeStarts[index]
        let first = layout.alternativeKeys[start]
        var path = codingPath
        PathTail.keys(Array(first.dropLast())).append(to: &path)
        let tried = layout.alternativeKeys[start..<layout.alternativeStarts[index + 1]]
        let seen = absenceDetail(entry: index).map { " (\($0))" } ?? ""
        return DecodingError.keyNotFound(
            AnyCodingKey(first[first.count - 1]),
            DecodingError.Context(
                codingPath: path,
                debugDescription:
                    "No value for \(tried.map { "\"\($0.joined(separator: "."))\"" }.joined(separator: " | "))\(seen).")
        )
    }

    func absenceDetail(entry index: Int) -> String? {
        var seen: [String] = []
        for alternative in layout.alternativeStarts[index]..<layout.alternativeStarts[index + 1] {
            var scope = layout.alternativeScopes[alternative]
            while scope != 0 {
                let container = scope - 1
                if containers[container] == -3 {
                    let value = Int(slots[layout.containerSlots[container]])
                    let detail =
                        "\"\(layout.containerPaths[container].joined(separator: "."))\" is \(document[value].kind.nameWithArticle), not an object"
                    if !seen.contains(detail) { seen.append(detail) }
                }
                scope = layout.containerParentScopes[container]
            }
        }
        return seen.isEmpty ? nil : seen.joined(separator: "; ")
    }

    /// The tape index of the value of the first alternative present, and that alternative.
    private func locate(entry index: Int) throws -> (Int, Int)? {
        for alternative in layout.alternativeStarts[index]..<layout.alternativeStarts[index + 1] {
            let scope = layout.alternativeScopes[alternative]
            if scope != 0 {
                guard try resolveContainer(scope - 1) else { continue }
            }
            let value = Int(slots[layout.alternativeSlots[alternative]])
            if value >= 0 { return (value, alternative) }
        }
        return nil
    }

    /// Whether nested object `container` is present (matching its keys on first use); one whose key
    /// holds something other than an object is absent, and remembered as such for the report.
    private func resolveContainer(_ container: Int) throws -> Bool {
        let state = containers[container]
        if state >= 0 { return true }
        if state == -1 || state == -3 { return false }
        let parentScope = layout.containerParentScopes[container]
        if parentScope != 0 {
            guard try resolveContainer(parentScope - 1) else {
                containers[container] = -1
                return false
            }
        }
        let value = Int(slots[layout.containerSlots[container]])
        if value < 0 || document[value].kindBits == JSONKind.null.rawValue {
            containers[container] = -1
            return false
        }
        guard document[value].kind == .object else {
            containers[container] = -3
            return false
        }
        table.match(document, object: value, scope: container + 1, into: slots)
        containers[container] = Int32(value)
        return true
    }
}
