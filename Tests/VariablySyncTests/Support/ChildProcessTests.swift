import Foundation
import Testing
import VariablyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The tests' own process launcher: statuses, kills, deadlines, and no descriptor leaking into a child.
@Suite(.timeLimit(.minutes(1))) struct ChildProcessTests {
    @Test func reportsTheExitStatusAndAKillingSignal() async throws {
        let exiting = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exit 3"])
        #expect(await exiting.exit(within: .seconds(30)) == .exited(3))

        let sleeping = try ChildProcess(executable: "/bin/sleep", arguments: ["30"])
        #expect(sleeping.isRunning)
        #expect(sleeping.kill() == .signaled(SIGKILL))
        #expect(!sleeping.isRunning)

        let overrunning = try ChildProcess(executable: "/bin/sleep", arguments: ["30"])
        #expect(await overrunning.exit(within: .milliseconds(200)) == .signaled(SIGKILL))
    }

    @Test func aChildInheritsOnlyItsStandardDescriptors() async throws {
        // A pipe and a file this process holds open must not reach the child, whose only descriptors
        // are 0, 1 and 2 (and the one `ls` opens to list them).
        let held = try ChildPipe()
        defer {
            close(held.readEnd)
            close(held.writeEnd)
        }
        let output = try ChildPipe()
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "ls /proc/$$/fd"], standardOutput: output.writeEnd)
        close(output.writeEnd)
        #expect(await child.exit(within: .seconds(30)) == .exited(0))
        let listing = FileHandle(fileDescriptor: output.readEnd, closeOnDealloc: true).readDataToEndOfFile()
        let descriptors = String(decoding: listing, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        #expect(descriptors.allSatisfy { ["0", "1", "2"].contains($0) }, "\(descriptors)")
    }
}
