public import Foundation
public import VariablySQLite

// MARK: - Observation

extension Repository {
    /// The cached models matching a query, now and after every change to the cache: sync pages,
    /// saves, deletes, and direct writes through the database.
    ///
    /// ```swift
    /// for try await adults in repository.observe(where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.userName)]) {
    ///     print(adults.count)
    /// }
    /// ```
    ///
    /// The current result comes at once, then one new result per committed transaction that changed
    /// it (coalesced when transactions come faster than fetches), fetched on a reader while a sync
    /// writes. See `SQLiteDatabase.observe(_:where:sortedBy:limit:)` for the rules.
    ///
    /// - Parameters:
    ///   - predicate: The filter, or `nil` for every model.
    ///   - sortDescriptors: The order.
    ///   - limit: The most models per result.
    /// - Returns: An asynchronous sequence of results; it ends when the consuming task is cancelled.
    public nonisolated func observe(
        where predicate: Predicate<Model>? = nil, sortedBy sortDescriptors: [SortDescriptor<Model>] = [],
        limit: Int? = nil
    ) -> AsyncThrowingStream<[Model], any Error> {
        database.observe(Model.self, where: predicate, sortedBy: sortDescriptors, limit: limit)
    }

    /// The cached model with `id`, now and after every change to it; `nil` while it is not cached.
    ///
    /// ```swift
    /// for try await user in repository.observe(id: 42) { print(user?.nickname ?? "-") }
    /// ```
    ///
    /// - Returns: An asynchronous sequence of the model or `nil`.
    public nonisolated func observe(id: Model.ID) -> AsyncThrowingStream<Model?, any Error> {
        database.observe(Model.self, id: id)
    }

    /// The number of cached models matching a predicate, now and after every change to it.
    ///
    /// ```swift
    /// for try await count in repository.observeCount(where: #Predicate { $0.isActive && $0.age > 30 }) {
    ///     print("\(count) active users over 30")
    /// }
    /// ```
    ///
    /// - Returns: An asynchronous sequence of counts.
    public nonisolated func observeCount(where predicate: Predicate<Model>? = nil) -> AsyncThrowingStream<
        Int, any Error
    > {
        database.observeCount(Model.self, where: predicate)
    }
}

extension LiveQuery {
    /// Starts observing the cached models of `repository` matching a query.
    ///
    /// ```swift
    /// let activeUsers = LiveQuery(repository, where: #Predicate { $0.isActive }, sortedBy: [SortDescriptor(\.userName)])
    /// ```
    ///
    /// - Parameters:
    ///   - repository: The repository.
    ///   - predicate: The filter, or `nil` for every model.
    ///   - sortDescriptors: The order.
    ///   - limit: The most models.
    public convenience init<ID>(
        _ repository: Repository<Model>, where predicate: Predicate<Model>? = nil,
        sortedBy sortDescriptors: [SortDescriptor<Model>] = [], limit: Int? = nil
    ) where Model: Identifiable<ID>, ID: Codable & Sendable {
        self.init(repository.observe(where: predicate, sortedBy: sortDescriptors, limit: limit))
    }
}
