package import VariablyCodable

/// A remote source or change feed whose declaration (its API shape, headers, limits) is checked when a
/// repository or store opens with it, not when it is made: its initializer does not throw, so that
/// it can be written inline. A source used on its own throws the same error from its first request.
package protocol DeclaredRemote: Sendable {
    /// The first mistake in the declaration, or `nil` when it is sound.
    var declarationError: DeclarationError? { get }
}

extension DeclaredRemote {
    /// Throws ``declarationError``, if any.
    package func checkDeclaration() throws(DeclarationError) {
        if let declarationError { throw declarationError }
    }
}
