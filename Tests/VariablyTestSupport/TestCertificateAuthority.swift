package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A certificate authority made for one test run with the system `openssl` CLI, and a certificate for
/// `127.0.0.1` and `localhost` that it signed, for the local TLS servers of the HTTPS tests.
///
/// URLSession on Linux trusts only libcurl's CA bundle, the system file: FoundationNetworking reads
/// `URLSessionCertificateAuthorityInfoFile` only on Android (`EasyHandle.setCARootBundlePath`), and
/// libcurl ignores `SSL_CERT_FILE` and `CURL_CA_BUNDLE` once that bundle is set (all tried). So the
/// HTTPS tests run in a re-launched test binary, in a mount namespace of its own where the system
/// bundle is replaced by the system's certificates plus this authority's: nothing outside that
/// process trusts it, and nothing on the machine changes.
package struct TestCertificateAuthority: Sendable {
    /// Where the files are: `ca.pem`, `server.pem`, `server.key`, `bundle.pem`.
    package let folder: URL
    package var certificate: String { folder.appendingPathComponent("ca.pem").path }
    /// The server certificate's file name without its extension: `server`, or `expired` and
    /// `wrong-host` for the certificates a client must refuse (see ``serving(_:)``).
    package var serverName = "server"
    package var serverCertificate: String { folder.appendingPathComponent("\(serverName).pem").path }
    package var serverKey: String { folder.appendingPathComponent("\(serverName).key").path }

    /// The authority whose files are in `folder` (made by ``make()``, or by `.ci/make-test-ca`).
    package init(folder: URL) {
        self.folder = folder
    }

    /// The same authority, with a server presenting the certificate `name` (`expired`, `wrong-host`).
    package func serving(_ name: String) -> TestCertificateAuthority {
        var copy = self
        copy.serverName = name
        return copy
    }
    /// The system's CA bundle plus ``certificate``.
    package var bundle: String { folder.appendingPathComponent("bundle.pem").path }

    /// The environment variable that tells a re-launched test binary where the authority is, and that
    /// it trusts it.
    package static let environmentKey = "VARIABLY_HTTPS_TEST_CA"

    /// The authority this process trusts: set in the re-launched binary, or by `.ci/run` where it
    /// added the authority to the system bundle (see ``isInSystemBundle``).
    package static let trusted: TestCertificateAuthority? = ProcessInfo.processInfo.environment[environmentKey].map {
        TestCertificateAuthority(folder: URL(fileURLWithPath: $0))
    }

    /// Whether ``trusted`` is in the system CA bundle itself: `.ci/run` does that on a disposable
    /// machine that allows no mount namespace (an unprivileged container), and says so with
    /// `VARIABLY_HTTPS_TEST_CA_IN_SYSTEM=1`. Then every process trusts it, the HTTPS cases run in this
    /// one, and a child needs no namespace.
    package static let isInSystemBundle =
        trusted != nil
        && ProcessInfo.processInfo.environment["VARIABLY_HTTPS_TEST_CA_IN_SYSTEM"] == "1"

    /// The CA bundle libcurl reads, the first of FoundationNetworking's list that exists.
    package static let systemBundle: String? = [
        "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/usr/share/ssl/certs/ca-bundle.crt",
        "/usr/local/share/certs/ca-root-nss.crt", "/etc/ssl/cert.pem",
    ].first { FileManager.default.fileExists(atPath: $0) }

    package static let openssl: String? = executable("openssl")
    package static let unshare: String? = executable("unshare")

    /// Why the HTTPS tests cannot run here, or `nil` when they can.
    package static let unavailability: String? = {
        guard PythonScriptProcess.python != nil else { return "python3 is not installed" }
        guard openssl != nil else { return "the openssl command is not installed (Debian: apt-get install openssl)" }
        guard systemBundle != nil else { return "no system CA bundle (Debian: apt-get install ca-certificates)" }
        guard isInSystemBundle || namespaceArguments != nil else {
            return "unshare cannot make a mount namespace here (util-linux, and root or user namespaces)"
        }
        return nil
    }()

    /// The `unshare` arguments that make a private mount namespace: `-m` as root, `-rm` (a user
    /// namespace) otherwise; `nil` when neither works.
    package static let namespaceArguments: [String]? = {
        guard let unshare else { return nil }
        for arguments in geteuid() == 0 ? [["-m"], ["-rm"]] : [["-rm"]] {
            let devNull = open("/dev/null", O_WRONLY)
            defer { close(devNull) }
            guard
                let child = try? ChildProcess(
                    executable: unshare, arguments: arguments + ["true"], standardOutput: devNull,
                    standardError: devNull)
            else { continue }
            if child.waitForExit(timeout: .seconds(10)) == .exited(0) { return arguments }
        }
        return nil
    }()

    /// Makes an authority and a server certificate in a fresh temporary folder, with `.ci/make-test-ca`
    /// (which CI and `Benchmarks/https-speed` use too).
    package static func make() async throws -> TestCertificateAuthority {
        guard openssl != nil, let systemBundle else { throw CocoaError(.fileNoSuchFile) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("variably-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let authority = TestCertificateAuthority(folder: folder)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".ci/make-test-ca")
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(devNull) }
        let child = try ChildProcess(
            executable: "/bin/bash", arguments: [script.path, folder.path], standardOutput: devNull,
            standardError: devNull)
        guard await child.exit(within: .seconds(60)) == .exited(0) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: ".ci/make-test-ca failed"])
        }
        let bundle =
            try Data(contentsOf: URL(fileURLWithPath: systemBundle))
            + Data("\n".utf8) + Data(contentsOf: URL(fileURLWithPath: authority.certificate))
        try bundle.write(to: URL(fileURLWithPath: authority.bundle))
        return authority
    }

    /// Starts the test binary filtered to `filter`, in a mount namespace where the system CA bundle is
    /// ``bundle`` (or as it is, where ``isInSystemBundle``), with ``environmentKey`` set; its output
    /// goes to `log`.
    package func launchTrustingChild(filter: String, log: String, extraEnvironment: [String: String] = [:]) throws
        -> ChildProcess
    {
        guard let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) else {
            throw CocoaError(.fileNoSuchFile)
        }
        var environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { _, new in new }
        environment[Self.environmentKey] = folder.path
        let output = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(output) }
        let filtered = ["--testing-library", "swift-testing", "--filter", filter]
        if Self.isInSystemBundle {
            return try ChildProcess(
                executable: executable, arguments: filtered, environment: environment, standardOutput: output,
                standardError: output)
        }
        guard let unshare = Self.unshare, let arguments = Self.namespaceArguments, let systemBundle = Self.systemBundle
        else { throw CocoaError(.fileNoSuchFile) }
        let script = #"mount --bind "$0" "$1" && exec "$2" --testing-library swift-testing --filter "$3""#
        return try ChildProcess(
            executable: unshare,
            arguments: arguments + ["/bin/sh", "-c", script, bundle, systemBundle, executable, filter],
            environment: environment, standardOutput: output, standardError: output)
    }

    package func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: - Helpers

    private static func executable(_ name: String) -> String? {
        let folders =
            ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
