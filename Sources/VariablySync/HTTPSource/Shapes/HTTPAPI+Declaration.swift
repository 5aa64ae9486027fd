import VariablyCodable

// MARK: - Checking the declaration

extension HTTPAPI {
    /// The first mistake in the API's shape, named after `modelType`: in the pull's query, the
    /// per-record endpoints' settings and the fields they name, the id listing; `nil` when there is none.
    ///
    /// - Parameter remoteKeys: The paths of the records' remote key set (every alternative of every
    ///   key), read only when a declared field is checked; `nil` when the records have no remote key set.
    func declarationError(modelType: String, remoteKeys: @autoclosure () -> [DataPath]?) -> DeclarationError? {
        if let error = pull.declarationError(modelType: modelType) { return error }
        if case .perRecord(let endpoints) = push,
            let error = endpoints.declarationError(modelType: modelType, remoteKeys: remoteKeys())
        {
            return error
        }
        if let listing = idListing {
            if listing.changedSince != nil {
                return DeclarationError(
                    .invalidSetting("HTTPAPI.idListing", requirement: "a listing of every id, without changedSince"),
                    modelType: modelType,
                    fix: "remove `changedSince` from the idListing shape: it would list only what changed")
            }
            if let error = listing.declarationError(modelType: modelType) { return error }
        }
        return nil
    }
}
