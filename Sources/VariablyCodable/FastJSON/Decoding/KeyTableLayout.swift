/// The keys of one model's key set, laid out for matching object keys by their bytes: built once per
/// key set (see ``KeyTableCache``), then used for every object of that model in every decode.
///
/// Keys are grouped by *scope*: scope 0 is the model's object, scope `c + 1` the nested object `c` of
/// the ``KeySetLayout`` (`data.profile` for `"data.profile.name"`). Each scope has *slots*, one per
/// distinct key name looked up in it (value keys and the keys of nested objects alike). Matching an
/// object fills, for every slot, the tape index of the first member with that key (Foundation keeps the
/// first of duplicate keys too).
///
/// Objects of one model usually list their keys in the same order, so ``KeyTable`` remembers the slot
/// that matched at each member position and tries it first on the next object: then matching costs one
/// length check and one short byte comparison per member.
///
/// `Sendable`: every property is a `let` set in `init`; the key set, the name bytes and the metatypes
/// are immutable once built.
final class KeyTableLayout: Sendable {
    /// The `KeySet<Model>` this table was built from (typed again by ``JSONDecodingSession/decodeModel``).
    nonisolated(unsafe) let keySet: AnyObject
    let source: CodingSource
    let layout: KeySetLayout

    // Slots, numbered across scopes: scope `s` owns `scopeStarts[s] ..< scopeStarts[s + 1]`.
    let scopeStarts: [Int]
    // Written once in `init`, then only read.
    private nonisolated(unsafe) let nameBytes: UnsafeMutablePointer<UInt8>
    private let nameOffsets: [Int]
    private let nameLengths: [Int]
    private let nameIsASCII: [Bool]
    private let nameStrings: [String]
    var slotCount: Int { nameStrings.count }

    // Entries: alternatives `alternativeStarts[i] ..< alternativeStarts[i + 1]` in the order they are tried.
    let alternativeStarts: [Int]
    let alternativeScopes: [Int]
    let alternativeSlots: [Int]
    /// The path of keys of each alternative, for coding paths.
    let alternativeKeys: [[String]]
    /// For an entry with one top-level key, its slot, else -1.
    let directSlots: [Int]
    /// The leaf key of each entry's first alternative, for `keyNotFound` errors.
    let firstLeafKeys: [AnyCodingKey]

    // Nested objects: the scope of the parent, the slot of the key in it, the full path of keys.
    let containerParentScopes: [Int]
    let containerSlots: [Int]
    let containerPaths: [[String]]

    /// Each entry's stored type (the wrapped type of an optional).
    let storedTypes: [ObjectIdentifier]
    /// Each entry's stored type when it is itself a key-set model, decoded through this machinery.
    nonisolated(unsafe) let modelTypes: [(any VariablyDecodable.Type)?]

    var scopeCount: Int { scopeStarts.count - 1 }

    init<Model>(keySet: KeySet<Model>) {
        self.keySet = keySet
        source = keySet.source
        layout = keySet.layout
        let paths = layout.paths
        let containers = layout.containers
        let scopeCount = containers.count + 1

        // Names per scope, deduplicated.
        var scopeNames = Array(repeating: [String](), count: scopeCount)
        func localSlot(_ name: String, scope: Int) -> Int {
            if let index = scopeNames[scope].firstIndex(of: name) { return index }
            scopeNames[scope].append(name)
            return scopeNames[scope].count - 1
        }
        var containerLocal: [Int] = []
        var containerParents: [Int] = []
        for container in containers {
            let parentScope = container.parent.map { $0 + 1 } ?? 0
            containerParents.append(parentScope)
            containerLocal.append(localSlot(container.key.stringValue, scope: parentScope))
        }
        var alternativeLocal: [Int] = []
        var alternativeScopes: [Int] = []
        var alternativeKeys: [[String]] = []
        var alternativeStarts = [0]
        for entryPaths in paths {
            for path in entryPaths {
                let scope = path.container.map { $0 + 1 } ?? 0
                alternativeScopes.append(scope)
                alternativeLocal.append(localSlot(path.leaf.stringValue, scope: scope))
                alternativeKeys.append(path.components.keys)
            }
            alternativeStarts.append(alternativeScopes.count)
        }
        var scopeStarts = [0]
        for names in scopeNames { scopeStarts.append(scopeStarts.last! + names.count) }
        self.scopeStarts = scopeStarts

        let strings = scopeNames.flatMap { $0 }
        nameStrings = strings
        var offsets: [Int] = []
        var total = 0
        for name in strings {
            offsets.append(total)
            total += name.utf8.count
        }
        nameOffsets = offsets
        nameLengths = strings.map(\.utf8.count)
        nameIsASCII = strings.map { $0.utf8.allSatisfy { $0 < 0x80 } }
        nameBytes = .allocate(capacity: max(total, 1))
        for (index, name) in strings.enumerated() {
            for (offset, byte) in name.utf8.enumerated() { nameBytes[offsets[index] + offset] = byte }
        }

        self.alternativeStarts = alternativeStarts
        self.alternativeScopes = alternativeScopes
        alternativeSlots = zip(alternativeScopes, alternativeLocal).map { scopeStarts[$0] + $1 }
        self.alternativeKeys = alternativeKeys
        let directKeys = layout.directKeys
        directSlots = paths.indices.map { entry in
            directKeys[entry] != nil ? scopeStarts[0] + alternativeLocal[alternativeStarts[entry]] : -1
        }
        firstLeafKeys = paths.map { $0[0].leaf }
        containerParentScopes = containerParents
        containerSlots = zip(containerParents, containerLocal).map { scopeStarts[$0] + $1 }
        containerPaths = containers.map(\.path)

        storedTypes = keySet.coders.map { ObjectIdentifier($0.storedType) }
        modelTypes = keySet.coders.map { $0.storedType as? any VariablyDecodable.Type }
    }

    deinit {
        nameBytes.deallocate()
    }

    @inline(__always)
    func name(_ slot: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: nameBytes + nameOffsets[slot], count: nameLengths[slot])
    }

    /// The slot among `slots` whose name equals the key at tape `index`, or -1.
    func search(_ document: JSONDocument, key index: Int, in slots: Range<Int>) -> Int {
        let entry = document[index]
        let isPlain = entry.flags & (JSONTapeEntry.isEscaped | JSONTapeEntry.isASCII) == JSONTapeEntry.isASCII
        var text: String?
        for slot in slots {
            if isPlain && nameIsASCII[slot] {
                if document.key(at: index, equals: name(slot)) { return slot }
            } else {
                // Escapes or non-ASCII text: compare as Swift strings (canonical equivalence), as Foundation.
                if text == nil { text = document.string(at: index) }
                if text! == nameStrings[slot] { return slot }
            }
        }
        return -1
    }

}
