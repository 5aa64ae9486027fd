import Foundation
import VariablyCodable
import VariablySQLite

/// A pulled page, decoded: what the next transaction applies.
struct FetchedPage<Model: SQLiteStorable & Identifiable & Sendable>: Sendable where Model.ID: Codable & Sendable {
    let page: RemotePage<Model.ID>
    let models: [Model]
    let skipped: [SkippedRecord<Model.ID>]
    let recordCount: Int
    /// The models' primary keys as the table stores them, in the same order: worked out with the
    /// decoding, off the writer.
    var keys: [SQLValue] = []
    /// Each model's version as the server sent it (JSON text), when the source's writes are
    /// conditional on one; `nil` otherwise.
    var versions: [String?]?
    /// The server's JSON of the skipped records that have an id, to park until the model decodes them.
    var skippedRecords: [ParkedRecords.ParkedRecord] = []
    /// The form of each date that follows the server, as the page's first record writes it.
    var serverDates: [String: ServerDateFormat] = [:]
}

// MARK: - Decoding a page

extension FetchedPage {
    /// The server's JSON of each decoded model, in the order of ``models``, or `nil` when the page's
    /// bytes cannot be walked again.
    ///
    /// - Complexity: One more walk over the page's bytes.
    func modelRecords() -> [Data]? {
        guard let body = try? JSONBody(page.records), let elements = try? body.elements(of: body.root) else {
            return nil
        }
        let skipped = Set(self.skipped.map(\.index))
        var records: [Data] = []
        records.reserveCapacity(models.count)
        for (index, element) in elements.enumerated() where !skipped.contains(index) {
            records.append(body.data(element))
        }
        return records.count == models.count ? records : nil
    }

    /// The bytes of each decoded record's `field`, in the order of `fetched.models` (records that were
    /// skipped left out); `nil` for a record without one.
    ///
    /// - Complexity: One more walk over the page's bytes, made only for sources with record versions.
    static func versions(in records: Data, field: String, of fetched: FetchedPage<Model>) -> [String?] {
        guard let body = try? JSONBody(records), let elements = try? body.elements(of: body.root) else {
            return Array(repeating: nil, count: fetched.models.count)
        }
        let skipped = Set(fetched.skipped.map(\.index))
        let path = DataPath(dotted: field)
        var versions: [String?] = []
        versions.reserveCapacity(fetched.models.count)
        for (index, element) in elements.enumerated() where !skipped.contains(index) {
            let range = try? body.range(at: path, in: element)
            let text = range.map { String(decoding: body.data($0), as: UTF8.self) }
            versions.append(text == "null" ? nil : text)
        }
        return versions.count == fetched.models.count ? versions : Array(repeating: nil, count: fetched.models.count)
    }

    /// Decodes a page with the remote key set through the core's `KeySetJSONDecoder` (same values and
    /// errors as `JSONDecoder(source: .remote)`, several times faster): the whole array at once, and only
    /// when a record fails, record by record, so that one bad record is skipped alone. A record whose
    /// text the decoder refuses (invalid UTF-8) fails with the decoder's error like any other, never
    /// repaired.
    static func decode(_ page: RemotePage<Model.ID>) throws -> FetchedPage<Model> {
        let decoder = KeySetJSONDecoder(source: .remote)
        if let models = try? decoder.decode([Model].self, from: page.records) {
            return FetchedPage(page: page, models: models, skipped: [], recordCount: models.count)
        }
        let records: [PageRecord<Model>]
        do {
            records = try decoder.decode([PageRecord<Model>].self, from: page.records)
        } catch {
            // A record that is not even JSON (invalid UTF-8 in a string) makes the whole page unparsable;
            // split, the error is that record's alone and the others are applied.
            guard let split = PageRecord<Model>.decodeOneByOne(page.records, refusedWith: error, decoder: decoder)
            else { throw error }
            records = split
        }
        var models: [Model] = []
        models.reserveCapacity(records.count)
        var skipped: [SkippedRecord<Model.ID>] = []
        for (index, record) in records.enumerated() {
            switch record.result {
            case .success(let model): models.append(model)
            case .failure(let error): skipped.append(SkippedRecord(index: index, id: record.id, error: error))
            }
        }
        var fetched = FetchedPage<Model>(page: page, models: models, skipped: skipped, recordCount: records.count)
        fetched.skippedRecords = parkable(skipped, in: page.records)
        return fetched
    }

    /// The server's JSON of the `skipped` records that have an id, to park as undecodable.
    ///
    /// - Complexity: One more walk over the page's bytes, only for a page with skipped records.
    static func parkable(_ skipped: [SkippedRecord<Model.ID>], in records: Data) -> [ParkedRecords.ParkedRecord] {
        guard !skipped.isEmpty, let primaryKey = try? PrimaryKey<Model>(), let body = try? JSONBody(records),
            let elements = try? body.elements(of: body.root)
        else {
            return []
        }
        return skipped.compactMap { record in
            guard let id = record.id, record.index < elements.count, let storedID = try? primaryKey.storedID(of: id)
            else { return nil }
            return ParkedRecords.ParkedRecord(
                recordID: storedID, record: body.data(elements[record.index]), version: nil, problem: "\(record.error)")
        }
    }
}
