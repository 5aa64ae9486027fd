import Foundation
import Testing
import VariablySQLite
import VariablySync

// MARK: - Paging against what DJA serves

extension JSONAPIRecipeTests {
    /// DJA serves at most 100 records a page (`JsonApiPageNumberPagination.max_page_size`), whatever
    /// `page[size]` asks, and says nothing of it: a first sync asking for 1,000 a page still pulls every
    /// record, page by page, through `links.next`.
    @Test func aPageSizeAboveTheServersSilentCapStillPullsEveryRecord() async throws {
        let server = try await JSONAPIServer.start()
        defer { server.stop() }
        for id in 1...250 { try server.write("people", "create", fields: ["id": id, "name": "person \(id)"]) }
        let blog = try Self.blog(
            on: server.baseURL, token: server.token, database: SQLiteDatabase.inMemory(), pageSize: 1_000)

        let report = try await blog.people.sync()
        #expect(report.inserted == 250)
        #expect(try await blog.people.count() == 250)
        let pages = try server.state().requests("GET", to: "people")
        #expect(pages.count >= 3)
        #expect(pages.allSatisfy { Self.query($0).contains("page[size]=1000") })
    }

    /// Fifty people edited on the server within the look-back window (2 s), ten pages of 5: the
    /// incremental sync turns the pages of its own request (`links.next`) rather than asking page 2 of a
    /// boundary moved into the window, and misses none of the edits.
    @Test func aLookBackWindowLongerThanAPageMissesNoEdit() async throws {
        let server = try await JSONAPIServer.start()
        defer { server.stop() }
        for id in 1...60 { try server.write("people", "create", fields: ["id": id, "name": "person \(id)"]) }
        let blog = try Self.blog(on: server)
        try await blog.people.sync()

        for id in 1...50 { try server.write("people", "update", id: Int64(id), fields: ["name": "edited \(id)"]) }
        let report = try await blog.people.sync()
        #expect(report.updated == 50)
        let cached = try await blog.people.fetch(sortedBy: [SortDescriptor(\.name)]).map(\.name)
        let onServer = try server.state().people.map(\.name).sorted()
        #expect(cached == onServer)
        #expect(cached.filter { $0.hasPrefix("edited") }.count == 50)
    }
}
