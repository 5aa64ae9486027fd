/// The two table sizes a scaling group compares, measured in the same run: 100,000 and 1,000,000
/// users, or 10,000 and 50,000 with `--quick` (a smoke run: sizes this small do not show the scaling,
/// and nothing fails on timing).
struct TableSizes {
    let small: Int
    let large: Int
    let isQuick: Bool

    init(configuration: Configuration) {
        (small, large) = configuration.isQuick ? (10_000, 50_000) : (100_000, 1_000_000)
        isQuick = configuration.isQuick
    }

    /// "yes" or "no"; in a quick run, where the sizes are too small to show scaling, neither.
    func met(_ isMet: Bool) -> String {
        isQuick ? "n/a (--quick)" : isMet ? "yes" : "no"
    }

    /// `100k`, `1M`.
    func label(_ records: Int) -> String {
        records % 1_000_000 == 0 ? "\(records / 1_000_000)M" : "\(records / 1_000)k"
    }
}
