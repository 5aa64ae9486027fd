/// The entries that a model's `init(from:)` asked for, by key path, in the order it asked: a reader of
/// many rows (a SQLite statement) resolves each key path once, on the first row, and later rows find
/// it by identity at its place in the order, without a lookup in the key set.
///
/// A key path literal evaluates to the same object every time (the runtime keeps it), so the check is
/// a pointer comparison. The recorded key paths are retained: an address that matches is the same
/// key path, never another one allocated where a freed one was.
///
/// One reader owns it and resets it before each row (``startRow()``); it is not `Sendable`.
@usableFromInline package final class KeyPathOrder {
    // Unchecked exclusivity: a class's stored properties are otherwise checked at run time on every
    // access, which cost more than the lookups this saves (callgrind, fetchAll: 1.9k instructions per
    // row). No access here overlaps another: each method reads or writes and returns, on the one
    // thread that reads the rows.
    @exclusivity(unchecked) @usableFromInline var keyPaths: [AnyKeyPath] = []
    /// The entry of each key path in ``keyPaths``; `-1` for a key path the key set excludes.
    @exclusivity(unchecked) @usableFromInline var entries: [Int] = []
    /// The place in the order of the next key path asked for.
    @exclusivity(unchecked) @usableFromInline var position = 0

    /// An empty order, filled in by the first row.
    package init() {}

    /// Starts a row: the next key path asked for is the model's first.
    package func startRow() {
        position = 0
    }

    /// The entry recorded for `keyPath` at the current place, if it is the key path recorded there;
    /// moves to the next place.
    @inlinable @inline(__always)
    func recordedEntry(of keyPath: AnyKeyPath) -> Int? {
        let place = position
        guard place < keyPaths.count, keyPaths[place] === keyPath else { return nil }
        position = place &+ 1
        return entries[place]
    }

    /// Records `entry` for `keyPath` at the current place (the first row, or a model that asks in
    /// another order this time); moves to the next place.
    @usableFromInline func record(_ keyPath: AnyKeyPath, entry: Int) {
        let place = position
        if place < keyPaths.count {
            keyPaths[place] = keyPath
            entries[place] = entry
        } else {
            keyPaths.append(keyPath)
            entries.append(entry)
        }
        position = place + 1
    }
}

@available(*, unavailable)
extension KeyPathOrder: Sendable {}
