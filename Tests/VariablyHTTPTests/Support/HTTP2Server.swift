import Foundation
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A local HTTP/2 server over TLS for the HTTP/2 tests: python3's `hypercorn` (Debian:
/// `apt-get install python3-hypercorn`) with an app that answers every request, after 50 ms so that
/// concurrent ones overlap, with the HTTP version it was spoken in and the client's port, which names
/// the connection it came on.
final class HTTP2Server {
    /// Whether the tests' python3 imports hypercorn and h2; asked once, without holding a thread of
    /// Swift's cooperative pool while python3 starts.
    static func isAvailable() async -> Bool {
        guard let python = PythonScriptProcess.python else { return false }
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(devNull) }
        guard
            let child = try? ChildProcess(
                executable: python, arguments: ["-c", "import hypercorn, h2"], standardOutput: devNull,
                standardError: devNull)
        else { return false }
        return await child.exit(within: .seconds(60)) == .exited(0)
    }

    let baseURL: URL
    private let server: PythonScriptProcess

    /// Starts the server with the authority's server certificate.
    init(tls authority: TestCertificateAuthority) async throws {
        let port = try TinyProxy.freePort()
        server = try await PythonScriptProcess.start(
            script: Self.script, arguments: [String(port), authority.serverCertificate, authority.serverKey],
            name: "http2")
        baseURL = URL(string: "https://127.0.0.1:\(server.port)/notes")!
    }

    func stop() {
        server.stop()
    }

    private static let script = #"""
        import asyncio, json
        from hypercorn.config import Config
        from hypercorn.asyncio import serve

        port, certificate, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
        exit_after(600, "http2")

        async def app(scope, receive, send):
            if scope["type"] == "lifespan":
                while True:
                    message = await receive()
                    if message["type"] == "lifespan.startup":
                        await send({"type": "lifespan.startup.complete"})
                    elif message["type"] == "lifespan.shutdown":
                        await send({"type": "lifespan.shutdown.complete"})
                        return
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            await asyncio.sleep(0.05)
            answer = json.dumps({"http_version": scope["http_version"], "client_port": scope["client"][1],
                                 "method": scope["method"], "length": len(body)}).encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": answer})

        config = Config()
        config.bind = ["127.0.0.1:%d" % port]
        config.certfile = certificate
        config.keyfile = key
        config.alpn_protocols = ["h2", "http/1.1"]
        config.accesslog = None
        config.errorlog = None

        async def main():
            server = asyncio.ensure_future(serve(app, config))
            while True:
                try:
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    writer.close()
                    break
                except OSError:
                    await asyncio.sleep(0.05)
            print(port, flush=True)
            await server

        asyncio.run(main())
        """#
}
