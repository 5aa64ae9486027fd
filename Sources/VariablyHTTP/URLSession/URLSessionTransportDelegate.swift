import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of a ``URLSessionTransport``'s session: hands each task's events to its
/// `URLSessionTransfer`. A session delegate, since FoundationNetworking on Linux does not call a
/// task's own delegate (`URLSessionTask.delegate`).
///
/// `@unchecked Sendable`: `transfers` is only touched while holding `lock` (URLSession calls the
/// delegate on its own queue, `send` registers from the caller's thread); the rest is immutable.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// The dispatch queue under the session's delegate queue (see `URLSessionTransport.delegateQueue`).
    let queue = DispatchQueue(label: "VariablyHTTP.URLSessionTransport.delegate")
    private let lock = NSLock()
    private var transfers: [Int: URLSessionTransfer] = [:]

    func register(_ transfer: URLSessionTransfer, for task: URLSessionTask) {
        lock.withLock { transfers[task.taskIdentifier] = transfer }
    }

    private func transfer(of task: URLSessionTask, removing: Bool = false) -> URLSessionTransfer? {
        lock.withLock { removing ? transfers.removeValue(forKey: task.taskIdentifier) : transfers[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let proceeds = transfer(of: dataTask)?.receive(response) ?? false
        completionHandler(proceeds ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(of: dataTask)?.receive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        transfer(of: task, removing: true)?.complete(error: error)
    }

    /// `nil`: the `3xx` answer goes back to the caller (the sync layer, whose redirect rules are the
    /// same on every transport).
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
