public import Testing
public import VariablyCodable

/// Records a test issue for every problem in `model`'s key sets.
///
/// ```swift
/// @Test func userKeySetsAreComplete() {
///     expectValidKeySets(User.self)
/// }
/// ```
///
/// - Parameters:
///   - model: The model whose ``KeySets`` are checked.
///   - sourceLocation: Where the issue is reported; the caller's line by default.
public func expectValidKeySets<Model: KeySetDescribable>(
    _ model: Model.Type, sourceLocation: SourceLocation = #_sourceLocation
) {
    for problem in Model.keySets.problems {
        Issue.record("\(Model.self) key sets: \(problem)", sourceLocation: sourceLocation)
    }
}
