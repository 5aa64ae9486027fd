import Foundation
import VariablyCodable

/// One page of a pull, read record by record against its ``HTTPPullShape``: the records kept (as the
/// server's bytes), the deletions, and what the pull learns on the way — the largest `changedSince`
/// value and the records at it, the look-back window, the declared fields met, the order checked.
/// ``HTTPPullShape`` then turns what it read into the state of the next request.
struct HTTPPageReader<ID: Decodable & Hashable & Sendable> {
    let shape: HTTPPullShape
    let body: JSONBody
    /// The state the page was asked with.
    let state: HTTPPullState
    let pageURL: URL
    /// The records to apply: tombstones and repeats left out.
    private(set) var kept: [Range<Int>] = []
    private(set) var deleted: [ID] = []
    /// Whether ``kept`` differs from the page's records.
    private(set) var changed = false
    /// The largest `changedSince` value met in this pull so far, and the records at it.
    private(set) var largest: JSONValue?
    /// ``largest`` read for comparisons, once.
    private var largestKey: HTTPPullShape.OrderKey?
    var atLargest: [String] {
        knownAtLargest + (pendingAtLargest.map { [recordID($0.element, id: $0.id)] } ?? [])
    }
    private var knownAtLargest: [String]
    private var isAtLargest: Set<String>
    /// The record at ``largest`` whose id is not made yet (its element and its id's bytes), if any.
    private var pendingAtLargest: (element: Range<Int>, id: Range<Int>)?
    /// With a look-back: the records of the window, newest last.
    private(set) var recent: [HTTPPullState.RecentRecord]
    /// Records of this page that are not repeats of records the pull already had.
    private(set) var newRecords = 0
    /// The declared fields (see ``HTTPPullShape/declaredFields``) met in this pull so far.
    private(set) var carried: Set<String>
    /// The id of the pull's first record, to name in errors.
    private(set) var firstRecord: String?
    /// A digest of the page's records, to tell a page served again from records out of order.
    let pageDigest: String?
    private let since: JSONValue?
    private let seen: Set<String>
    private let askedSince: JSONValue?
    private let askedKey: HTTPPullShape.OrderKey?
    /// Whether the page is the last one served again as it was.
    let isRepeat: Bool
    private let lookBack: Duration
    /// Reads an id that stands alone (a tombstone's, a listed deletion) as the model codes it.
    private let decodeID: (Data) throws -> ID
    /// The names of ``HTTPPullShape/declaredFields`` with their paths, worked out once a page.
    private let declaredFields: [(name: String, path: DataPath)]
    /// The paths in each record of the `changedSince` field, the deletion marker and the id, split once
    /// a page.
    private let changedSinceField: DataPath?
    private let deletionMarker: DataPath?
    private let idPath: DataPath
    /// The id's, the `changedSince` field's and the marker's paths (empty where not declared), looked up
    /// in one walk of each record.
    private let recordPaths: [DataPath]

    init(
        shape: HTTPPullShape, body: JSONBody, records: Range<Int>?, state: HTTPPullState, pageURL: URL,
        decodeID: @escaping (Data) throws -> ID
    ) throws {
        self.shape = shape
        self.decodeID = decodeID
        self.body = body
        self.state = state
        self.pageURL = pageURL
        largest = state.largest.map { try? JSONValue(parsing: $0) } ?? nil
        largestKey = largest.map(HTTPPullShape.OrderKey.init)
        knownAtLargest = state.atLargest ?? []
        // Each id once: a page that comes again (a flaky proxy, a server stuck on one link) must leave the
        // cursor as it was, or the repository could not tell the repeat from progress.
        isAtLargest = Set(knownAtLargest)
        recent = state.recent ?? []
        carried = Set(state.carried ?? [])
        declaredFields = shape.declaredFields.map { ($0.name, DataPath(dotted: $0.name)) }
        changedSinceField = shape.changedSince.map { DataPath(dotted: $0.field) }
        deletionMarker = shape.deletionMarker.map(DataPath.init(dotted:))
        idPath = shape.idPath
        recordPaths = [shape.idPath, changedSinceField ?? DataPath([]), deletionMarker ?? DataPath([])]
        firstRecord = state.firstRecord
        since = state.since.map { try? JSONValue(parsing: $0) } ?? nil
        seen = Set(state.seen ?? [])
        lookBack = shape.changedSince?.lookBack ?? .zero
        // The pages of a pull come in the declared order of `changedSince`: a record older than one
        // received before, or older than what the request asked for, means the server ignores the
        // ordering or the filter, and rows would be missed for good. (A pull with a look-back asks for
        // less than its boundary, so only the order within the pull is checked there.)
        askedSince = lookBack == .zero || state.isPagingBySince == true ? since : nil
        askedKey = askedSince.map(HTTPPullShape.OrderKey.init)
        // A page served again as it was (a proxy's repeat, a next link that does not advance) is no
        // disorder: the cursor's own checks deal with it.
        pageDigest = records.map { HTTPPullShape.digest(of: body.bytes[$0]) }
        isRepeat = pageDigest != nil && pageDigest == state.lastPage
    }

    /// Reads the ids listed apart as deleted (``HTTPPullShape/Deletions/ids(at:)``), at `range` of the body.
    mutating func readDeletedIDs(in range: Range<Int>, at path: DataPath) throws {
        guard let elements = try? body.elements(of: range) else {
            throw RemoteSourceError.invalidResponse("the deletions at \(path) are not an array of ids")
        }
        do {
            deleted = try elements.compactMap { element in
                body.bytes[element].elementsEqual("null".utf8) ? nil : try decodeID(body.data(element))
            }
        } catch {
            throw RemoteSourceError.invalidResponse("the deletions at \(path) are not an array of ids: \(error)")
        }
        newRecords += deleted.count
    }

    /// Reads one record of the page.
    mutating func read(_ element: Range<Int>) throws {
        // The id, the `changedSince` value and the deletion marker, found in one walk of the record.
        let found = try body.ranges(at: recordPaths, in: element)
        let idRange = found[0]
        if firstRecord == nil {
            firstRecord = idRange.map { String(decoding: body.data($0), as: UTF8.self) }
        }
        noteDeclaredFields(of: element)
        var isTombstone = false
        if deletionMarker != nil, try shape.isDeletion(element, in: body, markerAt: found[2]) {
            guard let idRange, let id = try? decodeID(body.data(idRange)) else {
                throw RemoteSourceError.invalidResponse("a tombstone without a valid \"\(shape.idKey)\"")
            }
            deleted.append(id)
            isTombstone = true
        }
        // A record without a value (missing or `null`) cannot be placed: it leaves the boundary alone.
        if changedSinceField != nil, let valueRange = found[1], case let value = try body.value(valueRange),
            value != .null
        {
            if try isRepeatOfSeen(element, id: idRange, value: value) {
                changed = true
                return
            }
        }
        newRecords += 1
        if isTombstone { changed = true } else { kept.append(element) }
    }

    /// Notes the declared fields `element` carries; each is looked for until a record carries it, so
    /// a pull whose records carry them costs one look-up per field, not per record.
    private mutating func noteDeclaredFields(of element: Range<Int>) {
        guard carried.count < declaredFields.count else { return }
        for field in declaredFields where !carried.contains(field.name) {
            if (try? body.range(at: field.path, in: element)) != nil { carried.insert(field.name) }
        }
    }

    /// Places a record's `changedSince` value: checks the order, moves the largest value, notes the
    /// look-back window; `true` for a record the last pull already received unchanged (a repeat).
    private mutating func isRepeatOfSeen(_ element: Range<Int>, id idRange: Range<Int>?, value: JSONValue) throws
        -> Bool
    {
        // The id with a digest of the record's bytes, made where it is compared (at the boundary, in the
        // look-back window) and otherwise only once a second record shares the largest value.
        // (Not `idRange.map { recordID(…) }`: a closure capturing `self` here copies the whole reader.)
        var id: String?
        if lookBack > .zero || value == since, let idRange { id = recordID(element, id: idRange) }
        let key = HTTPPullShape.OrderKey(value)
        if lookBack > .zero, let id, let seconds = key.seconds {
            recent.append(HTTPPullState.RecentRecord(seconds: seconds, id: id))
        }
        // Pulled at the boundary (or within the look-back window) by the last sync, unchanged: a
        // repeat, not a change.
        if let since, value == since || lookBack > .zero, let id, seen.contains(id) { return true }
        let order = largestKey.flatMap(key.order(to:))
        if !isRepeat, let current = largest, let order, order < 0 {
            throw outOfOrder(value, of: element, after: current, id: atLargest.first)
        }
        if !isRepeat, let asked = askedSince, let askedKey, let order = key.order(to: askedKey), order < 0 {
            throw outOfOrder(value, of: element, after: asked, id: nil)
        }
        if largest != nil, let order {
            if order > 0 {
                moveLargest(to: value, key: key, element: element, id: idRange)
            } else if order == 0, let idRange {
                makePendingID()
                let id = id ?? recordID(element, id: idRange)
                if isAtLargest.insert(id).inserted { knownAtLargest.append(id) }
            }
        } else if largest == nil {
            moveLargest(to: value, key: key, element: element, id: idRange)
        }
        return false
    }

    /// The id of the record at `element`, its id's bytes at `id`, with a digest of the record's bytes: a
    /// record written again with the boundary's timestamp (a server clock of coarse resolution, the
    /// client's own push) is a change.
    private func recordID(_ element: Range<Int>, id: Range<Int>) -> String {
        String(decoding: body.data(id), as: UTF8.self) + "#" + HTTPPullShape.digest(of: body.bytes[element])
    }

    /// A new largest value, with the one record at it so far, whose id is made only when needed: records
    /// mostly arrive each at a new largest value.
    private mutating func moveLargest(
        to value: JSONValue, key: HTTPPullShape.OrderKey, element: Range<Int>, id: Range<Int>?
    ) {
        (largest, largestKey) = (value, key)
        knownAtLargest.removeAll(keepingCapacity: true)
        isAtLargest.removeAll(keepingCapacity: true)
        pendingAtLargest = id.map { (element, $0) }
    }

    /// Makes the id of the record at the largest value whose id was left for later.
    private mutating func makePendingID() {
        guard let (element, idRange) = pendingAtLargest else { return }
        pendingAtLargest = nil
        let id = recordID(element, id: idRange)
        if isAtLargest.insert(id).inserted { knownAtLargest.append(id) }
    }

    /// The error for a record whose `changedSince` value comes before one the pull has passed: it names
    /// the endpoint, both records and the fix.
    private func outOfOrder(_ value: JSONValue, of element: Range<Int>, after earlier: JSONValue, id: String?)
        -> RemoteSourceError
    {
        let field = shape.changedSince?.field ?? "?"
        let recordID = (try? body.range(at: idPath, in: element)).flatMap { $0 }.map {
            String(decoding: body.data($0), as: UTF8.self)
        }
        let earlierRecord =
            id.map { "record \($0.split(separator: "#").first.map(String.init) ?? $0) " } ?? "the value asked for, "
        return RemoteSourceError.invalidResponse(
            "\(pageURL.path) serves records out of the declared order of \"\(field)\": record \(recordID ?? "?") "
                + "(\(value.jsonString().prefix(40))) came after \(earlierRecord)(\(earlier.jsonString().prefix(40))). The server "
                + "ignores the ordering or the \(field) filter the pull asks for, and writes made during a pull would be "
                + "missed. Make it sort by \(field), then id (Django REST Framework: OrderingFilter in filter_backends "
                + "with ordering_fields = [\"\(field)\", \"id\"]); see docs/http.md, \"Servers you do not control\"")
    }
}
