import VariablyCodable

// MARK: - Checking the declaration

extension HTTPPullShape {
    /// The first query parameter with an empty name, or a line break or NUL, named after `modelType`.
    func declarationError(modelType: String) -> DeclarationError? {
        for (name, value) in query.sorted(by: { $0.key < $1.key })
        where name.isEmpty || !HTTPRequestHead.isSafeHeaderText(name) || !HTTPRequestHead.isSafeHeaderText(value) {
            return DeclarationError(
                .unsafeQueryParameter(name), modelType: modelType,
                fix: "give the parameter a name, and remove the line break or NUL, in the pull shape's `query`")
        }
        return nil
    }
}
