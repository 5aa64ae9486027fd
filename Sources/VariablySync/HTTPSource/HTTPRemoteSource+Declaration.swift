package import VariablyCodable

// MARK: - Checking the declaration

extension HTTPRemoteSource: DeclaredRemote {
    /// The first mistake in the source's settings or its API shape, named after `Model`.
    package var declarationError: DeclarationError? { exchange.declarationError }

    /// The first mistake in the settings of `exchange` or in `api`, named after `Model`: the fields
    /// `api` names are checked against the model's remote key set.
    static func declarationError(of exchange: HTTPExchange, api: HTTPAPI) -> DeclarationError? {
        let modelType = "\(Model.self)"
        return exchange.settingsError(modelType: modelType)
            ?? api.declarationError(
                modelType: modelType, remoteKeys: Model.keySets[.remote]?.entries.flatMap(\.key.alternatives))
    }
}
