import Foundation

/// The state of one ``KeySetJSONDecoder/decode(_:from:)`` call: the parsed document, the source and
/// `userInfo`, and the key tables of the models met so far.
///
/// Values are decoded by ``decodeValue(_:at:path:)``: standard scalars, strings, arrays of them, dates
/// and key-set models straight from the tape; the types Foundation's `JSONDecoder` treats specially
/// (`Data` as Base64, `URL`, `Decimal`) as it does; everything else through ``JSONTapeDecoder``, a
/// complete `Decoder` over the same tape.
final class JSONDecodingSession {
    let document: JSONDocument
    let userInfo: [CodingUserInfoKey: Any]
    private var tables: [ObjectIdentifier: KeyTable] = [:]

    init(document: JSONDocument, userInfo: [CodingUserInfoKey: Any]) {
        self.document = document
        self.userInfo = userInfo
    }

    /// Breaks the cycles between tables and their spare backends.
    func finish() {
        for table in tables.values {
            table.spareBackends.removeAll()
            table.childTables.removeAll()
        }
        tables.removeAll()
    }

    // MARK: - Key-set models

    /// The key table of `Model` in the source that `userInfo` names (or the model's default source).
    ///
    /// - Throws: ``VariablyCodingError`` (no source, no key set for the source), as Foundation decoding does.
    func table<Model: VariablyDecodable>(for type: Model.Type, codingPath: @autoclosure () -> [any CodingKey]) throws
        -> KeyTable
    {
        if let table = tables[ObjectIdentifier(Model.self)] { return table }
        let (_, keySet) = try Model.keySet(for: userInfo, codingPath: codingPath())
        let table = KeyTable(layout: KeyTableCache.shared.layout(for: keySet))
        tables[ObjectIdentifier(Model.self)] = table
        return table
    }

    /// Decodes the key-set model at tape `index` through its unchanged `init(from container:)`.
    ///
    /// - Throws: ``VariablyCodingError``.
    func decodeModel<Model: VariablyDecodable>(
        _ type: Model.Type, table: KeyTable, at index: Int, base: CodingPathNode?, baseTail: PathTail
    ) throws -> Model {
        let entry = document[index]
        guard entry.kindBits == JSONKind.object.rawValue else {
            let path = ValuePath(base, baseTail).codingPath
            let error = containerError([String: Any].self, entry: entry, codingPath: path)
            throw VariablyCodingError(error, source: table.source, modelType: Model.self, entry: nil, codingPath: path)
        }
        var backend = table.makeBackend(session: self)
        backend.start(object: index, base: base, baseTail: baseTail)
        let keySet = unsafeDowncast(table.keySet, to: KeySet<Model>.self)
        table.keyPathOrder.startRow()
        let model = try Model(
            from: DecodingContainer(
                source: table.source, keySet: keySet, backend: backend, keyPathOrder: table.keyPathOrder))
        backend.finish()
        if isKnownUniquelyReferenced(&backend) { table.spareBackends.append(backend) }
        return model
    }

    /// Decodes a key-set model at tape `index`, looking its table up.
    func decodeModel<Model: VariablyDecodable>(_ type: Model.Type, at index: Int, path: ValuePath) throws -> Model {
        let table = try table(for: Model.self, codingPath: path.codingPath)
        return try decodeModel(Model.self, table: table, at: index, base: path.node(), baseTail: .none)
    }

    /// Decodes an array of key-set models at tape `index`.
    func decodeModels<Model: VariablyDecodable>(_ type: Model.Type, at index: Int, path: ValuePath) throws -> [Model] {
        let entry = document[index]
        guard entry.kindBits == JSONKind.array.rawValue else {
            throw containerError([Any].self, entry: entry, codingPath: path.codingPath)
        }
        let count = entry.length
        var models: [Model] = []
        guard count > 0 else { return models }
        models.reserveCapacity(count)
        let arrayNode = path.node()
        let table = try table(for: Model.self, codingPath: ValuePath(arrayNode, .index(0)).codingPath)
        var element = index + 1
        for position in 0..<count {
            models.append(
                try decodeModel(Model.self, table: table, at: element, base: arrayNode, baseTail: .index(position)))
            element = document.next(after: element)
        }
        return models
    }

    // MARK: - Any value

    /// Decodes the value at tape `index` as `T`, with the results and errors of Foundation's `JSONDecoder`.
    @inline(__always)
    func decodeValue<T: Decodable>(_ type: T.Type, at index: Int, path: ValuePath) throws -> T {
        if T.self == String.self { return unsafeBitCast(try string(at: index, path: path), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, at: index, path: path), to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try integer(Int64.self, at: index, path: path), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try double(at: index, path: path), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(at: index, path: path), to: T.self) }
        if T.self == [String].self { return unsafeBitCast(try strings(at: index, path: path), to: T.self) }
        if T.self == Date.self { return unsafeBitCast(try date(at: index, path: path), to: T.self) }
        return try decodeOther(T.self, at: index, path: path)
    }

    private func decodeOther<T: Decodable>(_ type: T.Type, at index: Int, path: ValuePath) throws -> T {
        if T.self == Int32.self { return unsafeBitCast(try integer(Int32.self, at: index, path: path), to: T.self) }
        if T.self == UInt64.self { return unsafeBitCast(try integer(UInt64.self, at: index, path: path), to: T.self) }
        if T.self == UInt.self { return unsafeBitCast(try integer(UInt.self, at: index, path: path), to: T.self) }
        if T.self == Int16.self { return unsafeBitCast(try integer(Int16.self, at: index, path: path), to: T.self) }
        if T.self == Int8.self { return unsafeBitCast(try integer(Int8.self, at: index, path: path), to: T.self) }
        if T.self == UInt32.self { return unsafeBitCast(try integer(UInt32.self, at: index, path: path), to: T.self) }
        if T.self == UInt16.self { return unsafeBitCast(try integer(UInt16.self, at: index, path: path), to: T.self) }
        if T.self == UInt8.self { return unsafeBitCast(try integer(UInt8.self, at: index, path: path), to: T.self) }
        if T.self == Float.self { return unsafeBitCast(try float(at: index, path: path), to: T.self) }
        if T.self == Data.self { return unsafeBitCast(try data(at: index, path: path), to: T.self) }
        if T.self == URL.self { return unsafeBitCast(try url(at: index, path: path), to: T.self) }
        if T.self == Decimal.self { return unsafeBitCast(try decimal(at: index, path: path), to: T.self) }
        if T.self == [Int].self { return unsafeBitCast(try integers(Int.self, at: index, path: path), to: T.self) }
        if T.self == [Int64].self { return unsafeBitCast(try integers(Int64.self, at: index, path: path), to: T.self) }
        if T.self == [Double].self { return unsafeBitCast(try doubles(at: index, path: path), to: T.self) }
        switch KeyTableCache.shared.route(for: T.self) {
        case .modelArray(let models):
            return try models.decode(from: self, at: index, path: path) as! T
        case .model(let model):
            return try decodeModel(model, at: index, path: path) as! T
        case .decodable:
            return try T(from: JSONTapeDecoder(session: self, value: index, path: path.node()))
        }
    }

    // MARK: - Scalars

    @inline(__always)
    func string(at index: Int, path: ValuePath) throws -> String {
        let entry = document[index]
        guard entry.kindBits == JSONKind.string.rawValue else {
            throw scalarError(String.self, entry: entry, path: path)
        }
        return document.string(at: index)
    }

    @inline(__always)
    func integer<T: FixedWidthInteger>(_ type: T.Type, at index: Int, path: ValuePath) throws -> T {
        let entry = document[index]
        guard entry.kindBits == JSONKind.number.rawValue else { throw scalarError(T.self, entry: entry, path: path) }
        return try document.integer(T.self, at: index)
    }

    @inline(__always)
    func double(at index: Int, path: ValuePath) throws -> Double {
        let entry = document[index]
        guard entry.kindBits == JSONKind.number.rawValue else {
            throw scalarError(Double.self, entry: entry, path: path)
        }
        return try document.double(at: index)
    }

    func float(at index: Int, path: ValuePath) throws -> Float {
        let entry = document[index]
        guard entry.kindBits == JSONKind.number.rawValue else {
            throw scalarError(Float.self, entry: entry, path: path)
        }
        return try document.float(at: index)
    }

    @inline(__always)
    func bool(at index: Int, path: ValuePath) throws -> Bool {
        switch document[index].kindBits {
        case JSONKind.true.rawValue: return true
        case JSONKind.false.rawValue: return false
        default:
            // Foundation reports `null` as a type mismatch for Bool, unlike the other types.
            throw typeMismatch(Bool.self, entry: document[index], codingPath: path.codingPath)
        }
    }

    /// Foundation's default `.deferredToDate`: seconds since 2001-01-01 as a number.
    @inline(__always)
    func date(at index: Int, path: ValuePath) throws -> Date {
        let entry = document[index]
        guard entry.kindBits == JSONKind.number.rawValue else {
            if entry.kindBits == JSONKind.null.rawValue {
                throw DecodingError.valueNotFound(
                    Date.self,
                    DecodingError.Context(
                        codingPath: path.codingPath,
                        debugDescription: "Cannot get value of type Date -- found null value instead"))
            }
            throw typeMismatch(Double.self, entry: entry, codingPath: path.codingPath)
        }
        return Date(timeIntervalSinceReferenceDate: try document.double(at: index))
    }

    /// Foundation's default `.base64`.
    func data(at index: Int, path: ValuePath) throws -> Data {
        let text = try nonNull(Data.self, at: index, path: path) { try string(at: index, path: path) }
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: path.codingPath, debugDescription: "Encountered Data is not valid Base64."))
        }
        return data
    }

    func url(at index: Int, path: ValuePath) throws -> URL {
        let text = try nonNull(URL.self, at: index, path: path) { try string(at: index, path: path) }
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: path.codingPath, debugDescription: "Invalid URL string."))
        }
        return url
    }

    func decimal(at index: Int, path: ValuePath) throws -> Decimal {
        let entry = document[index]
        guard entry.kindBits == JSONKind.number.rawValue else {
            throw scalarError(Decimal.self, entry: entry, path: path)
        }
        return try document.decimal(at: index)
    }

    private func nonNull<T>(_ type: Any.Type, at index: Int, path: ValuePath, _ read: () throws -> T) throws -> T {
        if document[index].kindBits == JSONKind.null.rawValue {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: path.codingPath,
                    debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return try read()
    }

    // MARK: - Arrays of scalars

    @inline(__always)
    private func elements(of index: Int, path: ValuePath) throws -> (count: Int, first: Int) {
        let entry = document[index]
        guard entry.kindBits == JSONKind.array.rawValue else {
            throw containerError([Any].self, entry: entry, codingPath: path.codingPath)
        }
        return (entry.length, index + 1)
    }

    func strings(at index: Int, path: ValuePath) throws -> [String] {
        let (count, first) = try elements(of: index, path: path)
        var result: [String] = []
        result.reserveCapacity(count)
        var element = first
        for position in 0..<count {
            let entry = document[element]
            guard entry.kindBits == JSONKind.string.rawValue else {
                throw scalarError(String.self, entry: entry, path: elementPath(path, position))
            }
            result.append(document.string(at: element))
            element = document.next(after: element)
        }
        return result
    }

    func integers<T: FixedWidthInteger>(_ type: T.Type, at index: Int, path: ValuePath) throws -> [T] {
        let (count, first) = try elements(of: index, path: path)
        var result: [T] = []
        result.reserveCapacity(count)
        var element = first
        for position in 0..<count {
            let entry = document[element]
            guard entry.kindBits == JSONKind.number.rawValue else {
                throw scalarError(T.self, entry: entry, path: elementPath(path, position))
            }
            result.append(try document.integer(T.self, at: element))
            element = document.next(after: element)
        }
        return result
    }

    func doubles(at index: Int, path: ValuePath) throws -> [Double] {
        let (count, first) = try elements(of: index, path: path)
        var result: [Double] = []
        result.reserveCapacity(count)
        var element = first
        for position in 0..<count {
            let entry = document[element]
            guard entry.kindBits == JSONKind.number.rawValue else {
                throw scalarError(Double.self, entry: entry, path: elementPath(path, position))
            }
            result.append(try document.double(at: element))
            element = document.next(after: element)
        }
        return result
    }

    private func elementPath(_ path: ValuePath, _ position: Int) -> ValuePath {
        ValuePath(path.node(), .index(position))
    }

    // MARK: - Errors, worded as Foundation's

    /// `valueNotFound` for `null`, else `typeMismatch`.
    func scalarError(_ type: Any.Type, entry: JSONTapeEntry, path: ValuePath) -> DecodingError {
        if entry.kindBits == JSONKind.null.rawValue {
            return DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: path.codingPath,
                    debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return typeMismatch(type, entry: entry, codingPath: path.codingPath)
    }

    func typeMismatch(_ type: Any.Type, entry: JSONTapeEntry, codingPath: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "Expected to decode \(type) but found \(entry.kind.description) instead."))
    }

    /// The error of asking for a keyed (`[String: Any]`) or unkeyed (`[Any]`) container on another kind.
    func containerError(_ type: Any.Type, entry: JSONTapeEntry, codingPath: [any CodingKey]) -> DecodingError {
        if entry.kindBits == JSONKind.null.rawValue {
            let container = type == [Any].self ? "unkeyed" : "keyed"
            return DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Cannot get \(container) decoding container -- found null value instead"))
        }
        return typeMismatch(type, entry: entry, codingPath: codingPath)
    }
}
