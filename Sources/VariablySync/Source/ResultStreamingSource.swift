/// A source that hands over each push result as soon as its answer arrives (one request per record),
/// so that the repository commits every accepted change at once: a kill during a long push loses at
/// most the answers of the requests in flight, never those of the whole batch. It says which changes
/// it is about to send, a window at a time, so that only those are *in flight* (may have been applied
/// without an answer) should the push be cut short.
package protocol ResultStreamingSource<Model>: RemoteSource {
    /// Pushes `changes` as ``RemoteSource/push(_:)`` does, calling `willSend` with each window of
    /// changes (as many as go at once) before its first request starts, and `onResult` with each result
    /// as it arrives, before the next request starts; returns every result, those handed over included.
    /// A change is sent only after `willSend` returned for it; an error of `willSend` ends the push
    /// before it.
    func push(
        _ changes: [RemoteChange<Model.ID>],
        willSend: @escaping @Sendable ([RemoteChange<Model.ID>]) async throws -> Void,
        onResult: @escaping @Sendable (PushResult<Model.ID>) async -> Void
    ) async throws -> [PushResult<Model.ID>]
}
