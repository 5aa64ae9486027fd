/// A push that failed after the server answered some of its changes: the answered ones are settled as
/// answered, and only the others are retried (a create the server applied is not sent twice).
package struct PartialPush<ID: Hashable & Sendable>: Error {
    /// The changes the server answered.
    package let results: [PushResult<ID>]
    /// Why the others got no answer.
    package let error: any Error
}
