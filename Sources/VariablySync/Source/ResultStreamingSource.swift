/// A source that hands over each push result as soon as its answer arrives (one request per record),
/// so that the repository commits every accepted change at once: a kill during a long push loses at
/// most the answers of the requests in flight, never those of the whole batch.
package protocol ResultStreamingSource<Model>: RemoteSource {
    /// Pushes `changes` as ``RemoteSource/push(_:)`` does, calling `onResult` with each result as it
    /// arrives, before the next request starts; returns every result, those handed over included.
    func push(
        _ changes: [RemoteChange<Model.ID>], onResult: @escaping @Sendable (PushResult<Model.ID>) async -> Void
    ) async throws -> [PushResult<Model.ID>]
}
