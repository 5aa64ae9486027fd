#if canImport(CCurl)
    import CCurl
    import Foundation

    /// One request of a ``CurlTransport``: a libcurl easy handle, made and set up in `init`, freed in
    /// `deinit`, and the state of its answer.
    ///
    /// The head is read line by line in the header callback; once its blank line has come (after any
    /// interim `1xx`), the caller waiting in `send` gets the status and headers. The body then streams
    /// out of the write callback chunk by chunk, counted against the size limit: the transfer stops the
    /// moment the limit is passed, decoded bytes included (libcurl decodes `gzip` and `deflate` as they
    /// arrive), so a gzip bomb never grows past it. Whichever comes first of the answer, a failure or a
    /// cancellation ends the transfer.
    ///
    /// `@unchecked Sendable`: the head's parts (`status`, `headerLines`, `headBytes`, `received`,
    /// `abortReason`) are only touched on the ``CurlMulti`` thread, in libcurl's callbacks; `head`,
    /// `finished` and `isHeadDelivered` only while holding `lock` (the caller's cancellation and the
    /// body's consumer are other threads); the rest is immutable. The easy handle is used only on the
    /// multi's thread once added, and freed when the last reference goes, after it left the multi.
    final class CurlTransfer: @unchecked Sendable {
        /// The longest head read, interim answers included.
        static let maximumHeadSize = 64 << 10

        let easy: UnsafeMutableRawPointer
        let summary: String
        private let multi: CurlMulti
        private let timeout: Double
        private let maximumResponseSize: Int
        private var headerList: UnsafeMutablePointer<curl_slist>?
        private let errorBuffer: UnsafeMutablePointer<CChar>
        private let body: AsyncThrowingStream<Data, any Error>
        private let bodyContinuation: AsyncThrowingStream<Data, any Error>.Continuation

        private let lock = NSLock()
        private var head: CheckedContinuation<HTTPTransportResponse, any Error>?
        private var finished = false
        private var isHeadDelivered = false

        private var status = 0
        private var headerLines: [(name: String, value: String)] = []
        private var headBytes = 0
        private var received = 0
        /// Why a callback stopped the transfer (libcurl then reports only `CURLE_WRITE_ERROR`).
        private var abortReason: (any Error)?

        /// An easy handle set up for `request`.
        ///
        /// - Throws: ``HTTPTransportError/libraryUnavailable(reason:install:)`` when libcurl cannot make
        ///   a handle.
        init(_ request: HTTPTransportRequest, configuration: CurlTransport.Configuration, multi: CurlMulti) throws {
            guard let easy = curl_easy_init() else {
                throw HTTPTransportError.libraryUnavailable(
                    reason: "libcurl \(CurlLibrary.version) could not make a handle", install: CurlLibrary.installHint)
            }
            self.easy = easy
            self.multi = multi
            summary = request.summary
            timeout = request.timeout
            maximumResponseSize = request.maximumResponseSize
            errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
            errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
            (body, bodyContinuation) = AsyncThrowingStream.makeStream(of: Data.self)
            bodyContinuation.onTermination = { [weak self] termination in
                if case .cancelled = termination { self?.cancel() }
            }
            configure(for: request, configuration)
        }

        deinit {
            curl_easy_cleanup(easy)
            curl_slist_free_all(headerList)
            errorBuffer.deallocate()
        }

        /// Whether the transfer has ended, for the multi's thread.
        var isFinished: Bool { lock.withLock { finished } }

        // MARK: - Setting up

        private func configure(for request: HTTPTransportRequest, _ configuration: CurlTransport.Configuration) {
            setLong(CURLOPT_NOSIGNAL, 1)
            setString(CURLOPT_URL, request.url.absoluteString)
            // Redirects go back to the caller: the sync layer follows them by its own rules, the same on
            // every transport (reads follow any, writes only 307 and 308).
            setLong(CURLOPT_FOLLOWLOCATION, 0)
            setLong(CURLOPT_TIMEOUT_MS, Int(min(request.timeout, 1e9) * 1000))
            setLong(
                CURLOPT_HTTP_VERSION,
                configuration.prefersHTTP2 ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1))
            // No CURLOPT_PIPEWAIT: with it, a request to a server whose last connection is still being set
            // up waits for it, and against a server that closes each connection (HTTP/1.1,
            // `Connection: close`) concurrent requests went one at a time. Requests after the first
            // answer of an HTTP/2 server share its connection anyway.
            setLong(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
            // Reads of up to 256 KiB (libcurl's default is 16 KiB): a page arrives in a few chunks, each
            // one hop to the body's reader, not in dozens.
            setLong(CURLOPT_BUFFERSIZE, 256 << 10)
            setPointer(CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
            if let proxy = configuration.proxy { setString(CURLOPT_PROXY, proxy) }
            if let noProxy = configuration.noProxy { setString(CURLOPT_NOPROXY, noProxy) }
            if let file = configuration.certificateAuthorityFile { setString(CURLOPT_CAINFO, file) }
            if let folder = configuration.certificateAuthorityDirectory { setString(CURLOPT_CAPATH, folder) }

            var list = headerList(for: request)
            // No `Expect: 100-continue` wait before a large body.
            list = curl_slist_append(list, "Expect:")
            list = setBody(of: request, headers: list)
            headerList = list
            _ = ccurl_easy_setopt_list(easy, CURLOPT_HTTPHEADER, list)
            setCallbacks()
        }

        /// The request's headers as a libcurl list, less `Accept-Encoding`, which goes to libcurl's own
        /// option (every coding this libcurl decodes, unless the request names its own).
        private func headerList(for request: HTTPTransportRequest) -> UnsafeMutablePointer<curl_slist>? {
            var acceptEncoding = ""
            var list: UnsafeMutablePointer<curl_slist>?
            for (name, value) in request.headers {
                if name.lowercased() == "accept-encoding" {
                    acceptEncoding = value
                    continue
                }
                // libcurl sends `Name;` as a header with an empty value; `Name:` would remove it.
                list = curl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
            }
            setString(CURLOPT_ACCEPT_ENCODING, acceptEncoding)
            return list
        }

        /// Sets the method and the body; returns `list` with the headers the body needs.
        private func setBody(
            of request: HTTPTransportRequest, headers list: UnsafeMutablePointer<curl_slist>?
        ) -> UnsafeMutablePointer<curl_slist>? {
            switch request.method {
            case "GET":
                setLong(CURLOPT_HTTPGET, 1)
            case "HEAD":
                setLong(CURLOPT_NOBODY, 1)
            default:
                let bytes = request.body ?? Data()
                _ = ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                if bytes.isEmpty {
                    setString(CURLOPT_COPYPOSTFIELDS, "")
                } else {
                    bytes.withUnsafeBytes { raw in
                        _ = ccurl_easy_setopt_pointer(
                            easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress))
                    }
                }
                if request.method != "POST" { setString(CURLOPT_CUSTOMREQUEST, request.method) }
                // libcurl would label a body it was given as a form.
                let hasContentType = request.headers.contains { $0.name.lowercased() == "content-type" }
                if !hasContentType { return curl_slist_append(list, "Content-Type:") }
            }
            return list
        }

        /// Points libcurl's header and body callbacks at this transfer.
        private func setCallbacks() {
            let context = Unmanaged.passUnretained(self).toOpaque()
            setPointer(CURLOPT_HEADERDATA, context)
            setPointer(CURLOPT_WRITEDATA, context)
            _ = ccurl_easy_setopt_callback(easy, CURLOPT_HEADERFUNCTION) { bytes, size, count, context in
                guard let bytes, let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: bytes, count: length)) ? length : 0
            }
            _ = ccurl_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION) { bytes, size, count, context in
                guard let bytes, let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                return transfer.receiveBody(UnsafeRawBufferPointer(start: bytes, count: length)) ? length : 0
            }
        }

        private func setLong(_ option: CURLoption, _ value: Int) {
            _ = ccurl_easy_setopt_long(easy, option, value)
        }

        private func setString(_ option: CURLoption, _ value: String) {
            _ = ccurl_easy_setopt_string(easy, option, value)
        }

        private func setPointer(_ option: CURLoption, _ value: UnsafeMutableRawPointer) {
            _ = ccurl_easy_setopt_pointer(easy, option, value)
        }

        // MARK: - Starting and ending

        /// Hands the transfer to the multi's thread, unless it ended first (cancelled).
        func start(continuation: CheckedContinuation<HTTPTransportResponse, any Error>) {
            let starts: Bool = lock.withLock {
                guard !finished else { return false }
                head = continuation
                return true
            }
            guard starts else {
                continuation.resume(throwing: CancellationError())
                return
            }
            multi.add(self)
        }

        /// Ends the transfer as cancelled: the caller or the body's consumer gets `CancellationError`,
        /// and the handle leaves the multi at once.
        func cancel() {
            if fail(CancellationError()) { multi.remove(self) }
        }

        /// Ends the transfer with `error` once; `false` when it had ended already.
        @discardableResult
        func fail(_ error: any Error) -> Bool {
            let (continuation, wasFinished): (CheckedContinuation<HTTPTransportResponse, any Error>?, Bool) =
                lock.withLock {
                    defer { (head, finished) = (nil, true) }
                    return (head, finished)
                }
            guard !wasFinished else { return false }
            continuation?.resume(throwing: error)
            bodyContinuation.finish(throwing: error)
            return true
        }

        /// libcurl's outcome for the transfer, on the multi's thread.
        func complete(_ code: CURLcode) {
            guard code == CURLE_OK else {
                fail(abortReason ?? error(for: code))
                return
            }
            // libcurl takes a head that the closed connection cut short for a whole one with an empty
            // body; the blank line that ends a head never came, so the answer is incomplete.
            if !lock.withLock({ isHeadDelivered }) {
                fail(
                    abortReason
                        ?? HTTPTransportError.connectionLost(
                            request: summary, reason: "the server closed the connection inside the response head"))
                return
            }
            let wasFinished: Bool = lock.withLock {
                defer { finished = true }
                return finished
            }
            if !wasFinished { bodyContinuation.finish() }
        }

        // MARK: - Callbacks (the multi's thread)

        /// One line of the head (libcurl hands them over whole, the blank one that ends it included).
        private func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
            // Trailers after a chunked body: the head was delivered already.
            guard !lock.withLock({ isHeadDelivered }) else { return true }
            headBytes += bytes.count
            guard headBytes <= Self.maximumHeadSize else {
                return abort(
                    HTTPTransportError.invalidResponse(
                        request: summary, reason: "the response head exceeds \(Self.maximumHeadSize) bytes"))
            }
            let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.hasPrefix("HTTP/") {
                // `HTTP/1.1 200 OK`, `HTTP/2 200`: a new answer, interim or final.
                let parts = line.split(separator: " ", maxSplits: 2)
                status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                headerLines = []
                return true
            }
            guard line.isEmpty else {
                if let colon = line.firstIndex(of: ":") {
                    let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    headerLines.append((name, value))
                }
                return true
            }
            // The blank line: the end of an interim answer (`100 Continue`), or of the final head.
            if (100..<200).contains(status) || status == 0 {
                status = 0
                headerLines = []
                return true
            }
            return deliverHead()
        }

        /// Hands the status and headers to the caller; `false` stops the transfer (it had ended, or an
        /// announced length is past the limit).
        private func deliverHead() -> Bool {
            var headers: [String: String] = [:]
            for (name, value) in headerLines {
                headers[name] = headers[name].map { "\($0), \(value)" } ?? value
            }
            if let length = headers["content-length"].flatMap({ Int($0) }), length > maximumResponseSize {
                return abort(HTTPTransportError.tooLarge(limit: maximumResponseSize))
            }
            // libcurl decodes the body it hands over: the coding no longer describes these bytes.
            headers["content-encoding"] = nil
            let response = HTTPTransportResponse(status: status, headers: headers, body: body)
            let continuation: CheckedContinuation<HTTPTransportResponse, any Error>? = lock.withLock {
                defer { head = nil }
                guard !finished else { return nil }
                isHeadDelivered = true
                return head
            }
            guard let continuation else { return false }
            continuation.resume(returning: response)
            return true
        }

        /// Body bytes as they arrive, decoded; `false` stops the transfer.
        private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
            guard !lock.withLock({ finished }) else { return false }
            if !lock.withLock({ isHeadDelivered }), !deliverHead() { return false }
            received += bytes.count
            guard received <= maximumResponseSize else {
                return abort(HTTPTransportError.tooLarge(limit: maximumResponseSize))
            }
            bodyContinuation.yield(Data(bytes))
            return true
        }

        /// Stops the transfer from a callback for `reason`: always `false`, what the callback returns.
        private func abort(_ reason: any Error) -> Bool {
            abortReason = reason
            return false
        }

        // MARK: - Errors

        /// What a libcurl result code means for this request, in the words of libcurl's error buffer.
        private func error(for code: CURLcode) -> HTTPTransportError {
            let detail = String(cString: errorBuffer)
            let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            var proxyStatus = 0
            _ = ccurl_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &proxyStatus)
            if proxyStatus >= 300 || code == CURLE_PROXY {
                return .proxyRefused(
                    request: summary,
                    reason: proxyStatus >= 300 ? "CONNECT answered \(proxyStatus) (\(reason))" : reason)
            }
            switch code {
            case CURLE_OPERATION_TIMEDOUT:
                return .timedOut(request: summary, seconds: timeout)
            case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
                return .cannotConnect(request: summary, reason: reason)
            case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
                CURLE_SSL_ISSUER_ERROR,
                CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CRL_BADFILE:
                return .tlsFailure(request: summary, reason: "the server's certificate was refused: \(reason)")
            case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER:
                return .tlsFailure(request: summary, reason: "the TLS handshake failed: \(reason)")
            case CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_HTTP2,
                CURLE_HTTP2_STREAM:
                return .connectionLost(request: summary, reason: reason)
            case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING:
                return .invalidResponse(request: summary, reason: reason)
            case CURLE_UNSUPPORTED_PROTOCOL, CURLE_NOT_BUILT_IN, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_INITFAILED:
                return .libraryUnavailable(
                    reason: "\(summary): libcurl \(CurlLibrary.version) cannot do this (\(reason))",
                    install: CurlLibrary.installHint)
            default:
                return .failed(request: summary, reason: reason)
            }
        }
    }
#endif
