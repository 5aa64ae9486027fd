/// A model's ``KeyTableLayout`` with what one decoding session learns and keeps while decoding: the
/// key order of the previous object, the tables of nested models, and backends ready for reuse.
final class KeyTable {
    let layout: KeyTableLayout
    var keySet: AnyObject { layout.keySet }
    var source: CodingSource { layout.source }

    /// Tables of nested models, filled on first use.
    var childTables: [KeyTable?]
    /// The slot that matched at each member position of the previous object, per scope (-1: none).
    private let hints: UnsafeMutablePointer<Int32>
    private static let hintPositions = 32
    /// Backends no longer referenced, ready for the next object of this model.
    var spareBackends: [JSONObjectBackend] = []
    /// The key paths the model's `init(from:)` reads, resolved on its first object (see
    /// ``KeyPathOrder``): a page of records looks each key path up in the key set once. A model nested
    /// in itself restarts the order mid-object, which costs the outer object a look-up, never a wrong
    /// entry (each place is checked by identity).
    let keyPathOrder = KeyPathOrder()

    init(layout: KeyTableLayout) {
        self.layout = layout
        childTables = Array(repeating: nil, count: layout.directSlots.count)
        hints = .allocate(capacity: layout.scopeCount * KeyTable.hintPositions)
        hints.initialize(repeating: -1, count: layout.scopeCount * KeyTable.hintPositions)
    }

    deinit {
        hints.deallocate()
    }

    /// Fills the slots of `scope` (in `slots`, indexed by global slot) with the tape index of the value
    /// of the first member of `object` that has the slot's key, or -1.
    @inline(__always)
    func match(_ document: JSONDocument, object: Int, scope: Int, into slots: UnsafeMutablePointer<Int32>) {
        let first = layout.scopeStarts[scope]
        let last = layout.scopeStarts[scope + 1]
        for slot in first..<last { slots[slot] = -1 }
        let end = document[object].end
        var member = 0
        var keyIndex = object + 1
        let scopeHints = hints + scope * KeyTable.hintPositions
        while keyIndex < end {
            let valueIndex = keyIndex + 1
            var found = -1
            if member < KeyTable.hintPositions {
                let hint = Int(scopeHints[member])
                if hint >= 0 && document.key(at: keyIndex, equals: layout.name(hint)) {
                    found = hint
                }
            }
            if found < 0 {
                found = layout.search(document, key: keyIndex, in: first..<last)
                if member < KeyTable.hintPositions && found >= 0 { scopeHints[member] = Int32(found) }
            }
            if found >= 0 && slots[found] < 0 { slots[found] = Int32(valueIndex) }
            keyIndex = document.next(after: valueIndex)
            member += 1
        }
    }

    /// Starts a ``JSONObjectBackend`` for each decoded object; reuses one that nothing references anymore.
    func makeBackend(session: JSONDecodingSession) -> JSONObjectBackend {
        if let backend = spareBackends.popLast() { return backend }
        return JSONObjectBackend(session: session, table: self)
    }
}
