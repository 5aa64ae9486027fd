import VariablySQLite

/// Where the last change of a record is: a record of a page (`page` indexes the batch's pages, the
/// parked records being one more page after them), or a deletion (`page` is -1). Not nested in the generic
/// ``TableBatch``: a type nested there is generic too, and an array of it looks up its metadata
/// on every use.
struct BatchChange {
    var key: SQLValue
    var page: Int32
    var index: Int32
}

/// The changes of a batch, one per key: the first change of a key takes the next place; a later
/// one (rare: a record changed twice within a batch) replaces it there.
struct BatchChanges {
    private var place: [SQLValue: Int] = [:]
    private(set) var changes: [BatchChange] = []
    /// Changes recorded, repeated keys included.
    private(set) var recorded = 0

    init(capacity: Int) {
        place.reserveCapacity(capacity)
        changes.reserveCapacity(capacity)
    }

    mutating func record(_ change: BatchChange) {
        recorded += 1
        if let earlier = place.updateValue(changes.count, forKey: change.key) {
            place[change.key] = earlier
            changes[earlier] = change
        } else {
            changes.append(change)
        }
    }

    /// Records the saves of page `page`, whose keys are `keys`.
    mutating func record(_ keys: [SQLValue], page: Int32) {
        for (index, key) in keys.enumerated() { record(BatchChange(key: key, page: page, index: Int32(index))) }
    }
}
