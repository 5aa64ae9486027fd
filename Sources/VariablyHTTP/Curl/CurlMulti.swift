#if canImport(CCurl)
    import CCurl
    import Foundation

    /// One libcurl multi handle and the thread that drives it: every transfer of a ``CurlTransport``
    /// runs here, so that they share its connections (kept alive, reused, multiplexed over HTTP/2).
    ///
    /// The thread is its own, not one of Swift's cooperative pool: it blocks in `curl_multi_poll` until
    /// a socket is ready, a timer is due or a caller wakes it, which would take a thread from that small
    /// pool for as long as a transfer lasts. Callers never touch the multi handle: they queue a command
    /// (add a transfer, remove one) and wake the thread (`curl_multi_wakeup`, which libcurl allows from
    /// any thread). Each transfer's callbacks run on this thread.
    ///
    /// `@unchecked Sendable`: `commands` and `isShuttingDown` are only touched while holding `lock`;
    /// `transfers` and the multi handle only on the thread; the handle itself is freed in `deinit`, once
    /// the thread has ended and no caller holds this object.
    final class CurlMulti: @unchecked Sendable {
        private enum Command {
            case add(CurlTransfer)
            case remove(CurlTransfer)
        }

        private let handle: UnsafeMutableRawPointer
        private let lock = NSLock()
        private var commands: [Command] = []
        private var isShuttingDown = false
        /// The transfers in the multi handle, by easy handle: the thread's own.
        private var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]

        /// A multi handle with its thread; `nil` where libcurl cannot make one.
        init?() {
            guard CurlLibrary.initializationFailure == nil, let handle = curl_multi_init() else { return nil }
            self.handle = handle
            _ = ccurl_multi_setopt_long(handle, CURLMOPT_PIPELINING, ccurl_multiplex())
            let thread = Thread { [self] in run() }
            thread.name = "VariablyHTTP.curl"
            thread.start()
        }

        deinit {
            curl_multi_cleanup(handle)
        }

        /// Starts `transfer` on the thread.
        func add(_ transfer: CurlTransfer) {
            send(.add(transfer))
        }

        /// Takes `transfer` out of the multi handle, if it is still there: it stops at once.
        func remove(_ transfer: CurlTransfer) {
            send(.remove(transfer))
        }

        /// Ends the thread once the transfers still running have ended (each holds this object).
        func shutDown() {
            lock.withLock { isShuttingDown = true }
            curl_multi_wakeup(handle)
        }

        private func send(_ command: Command) {
            lock.withLock { commands.append(command) }
            curl_multi_wakeup(handle)
        }

        // MARK: - The thread

        private func run() {
            var running: Int32 = 0
            while true {
                let (pending, stops) = lock.withLock {
                    defer { commands = [] }
                    return (commands, isShuttingDown)
                }
                for command in pending { apply(command) }
                // The transport is gone; the requests it started run to their end (their bodies may
                // still be read), then the thread ends.
                if stops, transfers.isEmpty { return }
                _ = curl_multi_perform(handle, &running)
                collectFinishedTransfers()
                // At most a second: libcurl's own timers (deadlines, keep-alive) are due sooner if need be.
                _ = curl_multi_poll(handle, nil, 0, 1000, nil)
            }
        }

        private func apply(_ command: Command) {
            switch command {
            case .add(let transfer):
                guard !transfer.isFinished else { return }
                let code = curl_multi_add_handle(handle, transfer.easy)
                guard code == CURLM_OK else {
                    transfer.fail(
                        HTTPTransportError.failed(
                            request: transfer.summary,
                            reason: "libcurl refused the transfer (\(String(cString: curl_multi_strerror(code))))"))
                    return
                }
                transfers[transfer.easy] = transfer
            case .remove(let transfer):
                guard transfers.removeValue(forKey: transfer.easy) != nil else { return }
                curl_multi_remove_handle(handle, transfer.easy)
            }
        }

        private func collectFinishedTransfers() {
            var left: Int32 = 0
            while let message = curl_multi_info_read(handle, &left) {
                guard ccurl_message_is_done(message) != 0, let easy = message.pointee.easy_handle else { continue }
                let result = ccurl_message_result(message)
                guard let transfer = transfers.removeValue(forKey: easy) else { continue }
                curl_multi_remove_handle(handle, easy)
                transfer.complete(result)
            }
        }
    }
#endif
