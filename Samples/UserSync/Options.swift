/// The command line of `UserSync`, parsed by hand: the package has no dependencies.
struct Options {
    var users = 10_000
    var databasePath = "users.sqlite"
    var faultRate = 0.05
    var reset = false

    static let usage = """
        usage: swift run UserSync [--users N] [--database PATH] [--fault-rate X] [--reset]

          --users N        users on the simulated server (default 10000)
          --database PATH  the SQLite cache (default ./users.sqlite); the cache file goes next to it
          --fault-rate X   probability of a transient failure per request, in 0...1 (default 0.05);
                           a few records per page are also served malformed at X/100 per record
          --reset          delete the database first (otherwise it is reused when it still matches)
        """

    /// Parses `arguments` (without the program name).
    init(_ arguments: [String]) throws(OptionsError) {
        var rest = arguments[...]
        func value(for flag: String) throws(OptionsError) -> String {
            guard let value = rest.popFirst() else { throw OptionsError("\(flag) needs a value") }
            return value
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--users":
                guard let count = Int(try value(for: flag)), count > 0 else {
                    throw OptionsError("--users needs a positive number")
                }
                users = count
            case "--database":
                databasePath = try value(for: flag)
            case "--fault-rate":
                guard let rate = Double(try value(for: flag)), (0...1).contains(rate) else {
                    throw OptionsError("--fault-rate needs a number between 0 and 1")
                }
                faultRate = rate
            case "--reset":
                reset = true
            case "--help", "-h":
                throw OptionsError(nil)
            default:
                throw OptionsError("unknown argument \(flag)")
            }
        }
    }
}

/// A command line that cannot be run; `message` is `nil` when help was asked for.
struct OptionsError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}
