import Foundation
package import VariablyCodable

// MARK: - Checking the declaration

extension HTTPRemoteSource: DeclaredRemote {
    /// The first mistake in the source's settings or its API shape, named after `Model`.
    package var declarationError: DeclarationError? { declarationError(modelType: "\(Model.self)") }

    /// The first mistake in the source's settings or its API shape, named after `modelType`.
    func declarationError(modelType: String) -> DeclarationError? {
        func invalid(_ setting: String, _ requirement: String, fix: String) -> DeclarationError {
            DeclarationError(.invalidSetting(setting, requirement: requirement), modelType: modelType, fix: fix)
        }
        if !(timeout > 0) {
            return invalid("HTTPRemoteSource.timeout", "more than 0 seconds", fix: "pass a timeout such as 30")
        }
        if maximumResponseSize < 1 {
            return invalid(
                "HTTPRemoteSource.maximumResponseSize", "at least 1 byte", fix: "pass a size such as 64 << 20")
        }
        // A line break or NUL in a header could smuggle further headers.
        for (name, value) in headers.sorted(by: { $0.key < $1.key })
        where name.isEmpty || name.contains(":") || !HTTPRequestHead.isSafeHeaderText(name)
            || !HTTPRequestHead.isSafeHeaderText(value)
        {
            return DeclarationError(
                .unsafeHeader(name), modelType: modelType,
                fix: "remove the line break or NUL, or give the header a name without a colon, in `headers`")
        }
        if let error = api.pull.declarationError(modelType: modelType) { return error }
        if case .perRecord(let endpoints) = api.push, endpoints.maximumConcurrentRequests < 1 {
            return invalid(
                "HTTPRecordEndpoints.maximumConcurrentRequests", "at least 1",
                fix: "pass 1 to push one record at a time (it is \(endpoints.maximumConcurrentRequests))")
        }
        // A reference the records do not carry: every create's look-up would find nothing.
        if case .perRecord(let endpoints) = api.push, let reference = endpoints.clientReference,
            let keySet = Model.keySets[.remote],
            !keySet.entries.contains(where: { entry in
                entry.paths.contains { $0.components.keys == DataPath(dotted: reference.field).keys }
            })
        {
            return invalid(
                "HTTPRecordEndpoints.clientReference", "a field the model's remote key set has",
                fix: "give the model a property keyed \"\(reference.field)\" in its remote key set (a UUID it sets "
                    + "when it creates a record), or name one it has")
        }
        if case .perRecord(let endpoints) = api.push,
            let error = Self.versionDeclarationError(endpoints, modelType: modelType)
                ?? writeDeclarationError(endpoints, modelType: modelType)
        {
            return error
        }
        if case .perRecord(let endpoints) = api.push, let batch = endpoints.batch, batch.maximumRequests < 1 {
            return invalid(
                "HTTPBatchEndpoint.maximumRequests", "at least 1",
                fix: "declare the server's limit of writes per batch (PocketBase: its batch.maxRequests setting, 50 "
                    + "by default)")
        }
        if case .perRecord(let endpoints) = api.push, let problem = endpoints.newIDs.problem {
            return invalid(
                "HTTPRecordEndpoints.newIDs", "a length of at least 1 and 2 or more distinct characters",
                fix: "declare `newIDs` with \(problem)")
        }
        if let listing = api.idListing {
            if listing.changedSince != nil {
                return invalid(
                    "HTTPAPI.idListing", "a listing of every id, without changedSince",
                    fix: "remove `changedSince` from the idListing shape: it would list only what changed")
            }
            if let error = listing.declarationError(modelType: modelType) { return error }
        }
        return nil
    }
}

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
