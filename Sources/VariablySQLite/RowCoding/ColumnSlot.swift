/// One key-set entry as a column of a statement: where it is and how it is stored.
struct ColumnSlot: Sendable {
    /// The property's stored type (the wrapped type for an optional).
    let type: Any.Type
    let kind: ColumnKind
    /// The column (for reading) or 1-based parameter (for binding) index; -1 or 0 when absent.
    let index: Int32

    init(type: Any.Type, kind: ColumnKind, index: Int32) {
        self.type = type
        self.kind = kind
        self.index = index
    }
}
