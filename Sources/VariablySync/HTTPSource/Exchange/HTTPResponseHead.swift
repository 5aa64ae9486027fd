/// The status and headers of an answer that ``HTTPRemoteSource`` read, whatever the transport.
struct HTTPResponseHead: Equatable {
    var status: Int
    /// Header names in lower case; repeated headers joined with `, `.
    var headers: [String: String]
}
