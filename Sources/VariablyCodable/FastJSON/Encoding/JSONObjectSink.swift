/// Receives a model's entries for ``JSONWriter``: writes them straight into the output when the key set
/// has no nested paths, else collects them per nested object and writes the objects at the end, each
/// where its first entry was (as `JSONEncoder`'s nested containers are).
final class JSONObjectSink: KeySetEncodingSink {
    private let writer: JSONWriter
    private let layout: KeySetLayout
    private var basePath: [any CodingKey] = []
    private var index: Int?
    private let isFlat: Bool
    private var isFirst = true
    /// For nested paths: the members of the top-level object (0) and of each nested object (`c + 1`).
    private var objects: [[(key: String, member: Member)]] = []

    private enum Member {
        case value([UInt8])
        case object(Int)
    }

    /// The server's date forms, for the dates of a top-level record.
    private let serverDates: ServerDateFormats?

    init(writer: JSONWriter, layout: KeySetLayout) {
        self.writer = writer
        self.layout = layout
        isFlat = layout.containers.isEmpty
        serverDates = writer.userInfo[.serverDateFormats] as? ServerDateFormats
    }

    func serverDateFormat(at index: Int) -> ServerDateFormat? {
        // Only the record handed to the encoder (or an array's elements): a nested model's paths are its own.
        guard let serverDates, basePath.isEmpty else { return nil }
        return serverDates.format(at: layout.paths[index][0])
    }

    /// The coding path of the object being written.
    var codingPath: [any CodingKey] { index.map { basePath + [AnyCodingKey.index($0)] } ?? basePath }

    /// Starts the object at `basePath`, or element `index` of the array there.
    func start(basePath: [any CodingKey], index: Int?) {
        self.basePath = basePath
        self.index = index
        isFirst = true
        if isFlat {
            writer.bytes.append(UInt8(ascii: "{"))
        } else {
            objects = Array(repeating: [], count: layout.containers.count + 1)
        }
    }

    func encode<Value: Encodable>(_ value: Value, at index: Int) throws {
        let path = layout.paths[index][0]
        if isFlat {
            if !isFirst { writer.bytes.append(UInt8(ascii: ",")) }
            isFirst = false
            writer.writeString(path.leaf.stringValue)
            writer.bytes.append(UInt8(ascii: ":"))
            try writer.write(value, codingPath: self.codingPath + [path.leaf])
            return
        }
        // Write the value at the end of the output, then move it into its object.
        let start = writer.bytes.count
        // `JSONEncoder` reports a value in a nested container at the model's path plus the value's own key.
        try writer.write(value, codingPath: self.codingPath + [path.leaf])
        let bytes = Array(writer.bytes[start...])
        writer.bytes.removeSubrange(start...)
        let object = path.container.map { createObject($0) } ?? 0
        objects[object].append((path.leaf.stringValue, .value(bytes)))
    }

    func encodeNil(at index: Int) throws {
        // Like synthesized Codable and `JSONEncoder`, an optional holding nil writes no key at all.
    }

    /// The object index of nested object `container`, adding it to its parent on first use.
    private func createObject(_ container: Int) -> Int {
        let object = container + 1
        let info = layout.containers[container]
        let parent = info.parent.map { createObject($0) } ?? 0
        if !objects[parent].contains(where: { if case .object(object) = $0.member { true } else { false } }) {
            objects[parent].append((info.key.stringValue, .object(object)))
        }
        return object
    }

    func finish() {
        if isFlat {
            writer.bytes.append(UInt8(ascii: "}"))
        } else {
            write(object: 0)
        }
        basePath = []
    }

    private func write(object: Int) {
        writer.bytes.append(UInt8(ascii: "{"))
        for (index, member) in objects[object].enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            writer.writeString(member.key)
            writer.bytes.append(UInt8(ascii: ":"))
            switch member.member {
            case .value(let bytes): writer.bytes += bytes
            case .object(let nested): write(object: nested)
            }
        }
        writer.bytes.append(UInt8(ascii: "}"))
    }
}
