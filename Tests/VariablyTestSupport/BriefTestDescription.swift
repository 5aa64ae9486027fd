import Foundation

extension String {
    /// The string as a test argument shows it: whole when short, its start and its length when long,
    /// so that a test log's lines stay readable (CI fails on a line longer than 2,000 characters).
    ///
    /// ```swift
    /// var testDescription: String { "\(column) = \(sql.briefTestDescription)" }   // user_name = 'xxxxxxxx… (10485762 bytes)
    /// ```
    package var briefTestDescription: String {
        let limit = 80
        guard utf8.count > limit else { return self }
        return "\(prefix(limit / 4))… (\(utf8.count) bytes)"
    }
}
