public import Foundation
public import Observation

/// A query that keeps its results current: an `@Observable` object for a SwiftUI view (or any
/// observer) to hold.
///
/// ```swift
/// struct ActiveUsers: View {
///     @State private var query = LiveQuery(database, User.self, where: #Predicate { $0.isActive }, sortedBy: [SortDescriptor(\.userName)])
///
///     var body: some View {
///         List(query.results) { Text($0.userName) }
///     }
/// }
/// ```
///
/// It follows ``SQLiteDatabase/observe(_:where:sortedBy:limit:)``: ``results`` changes after each
/// committed write that changes them, on the main actor, and ``error`` is set if a fetch fails (the
/// results then stay as they were, and the query stops). Releasing the object stops the observation.
@MainActor
@Observable
public final class LiveQuery<Model: SQLiteStorable & Sendable> {
    /// The current results; empty until the first fetch completes (see ``isLoaded``).
    public private(set) var results: [Model] = []
    /// Whether the first fetch has completed.
    public private(set) var isLoaded = false
    /// The error that stopped the query, if one did.
    public private(set) var error: (any Error)?

    @ObservationIgnored private let subscription = Subscription()

    /// Starts observing the models of `database` matching a query.
    ///
    /// ```swift
    /// let adults = LiveQuery(database, User.self, where: #Predicate { $0.age > 30 }, limit: 100)
    /// ```
    ///
    /// - Parameters:
    ///   - database: The database.
    ///   - type: The stored model type.
    ///   - predicate: The filter, or `nil` for every model.
    ///   - sortDescriptors: The order.
    ///   - limit: The most models.
    public init(
        _ database: SQLiteDatabase, _ type: Model.Type = Model.self, where predicate: Predicate<Model>? = nil,
        sortedBy sortDescriptors: [SortDescriptor<Model>] = [], limit: Int? = nil
    ) {
        follow(database.observe(type, where: predicate, sortedBy: sortDescriptors, limit: limit))
    }

    /// Starts following any stream of results, e.g. a repository's
    /// `observe(where:sortedBy:limit:)`.
    ///
    /// ```swift
    /// let query = LiveQuery(repository.observe(where: #Predicate { $0.isActive }))
    /// ```
    ///
    /// - Parameter results: The results, current first, as the observation methods return them.
    public init(_ results: AsyncThrowingStream<[Model], any Error>) {
        follow(results)
    }

    private func follow(_ stream: AsyncThrowingStream<[Model], any Error>) {
        subscription.task = Task { @MainActor [weak self] in
            do {
                for try await value in stream {
                    guard let self else { return }
                    self.results = value
                    if !self.isLoaded { self.isLoaded = true }
                }
            } catch {
                self?.error = error
            }
        }
    }

    deinit {
        subscription.task?.cancel()
    }
}

/// The task that feeds a ``LiveQuery``, cancelled when the query is released.
///
/// `@unchecked Sendable`: `task` is only touched while holding `lock`.
private final class Subscription: @unchecked Sendable {
    private let lock = NSLock()
    private var storedTask: Task<Void, Never>?

    var task: Task<Void, Never>? {
        get { lock.withLock { storedTask } }
        set { lock.withLock { storedTask = newValue } }
    }
}
