import VariablyCodable

// MARK: - Checking the declaration

extension HTTPRecordEndpoints {
    /// The first mistake in the endpoints' settings, or in the fields they name that the records must
    /// carry, named after `modelType`; `nil` when there is none.
    ///
    /// - Parameter remoteKeys: The paths of the records' remote key set (every alternative of every
    ///   key), read only when a declared field is checked; `nil` when the records have no remote key set.
    func declarationError(modelType: String, remoteKeys: @autoclosure () -> [DataPath]?) -> DeclarationError? {
        func invalid(_ setting: String, _ requirement: String, fix: String) -> DeclarationError {
            DeclarationError(.invalidSetting(setting, requirement: requirement), modelType: modelType, fix: fix)
        }
        if maximumConcurrentRequests < 1 {
            return invalid(
                "HTTPRecordEndpoints.maximumConcurrentRequests", "at least 1",
                fix: "pass 1 to push one record at a time (it is \(maximumConcurrentRequests))")
        }
        // A reference the records do not carry: every create's look-up would find nothing.
        if let reference = clientReference, let keys = remoteKeys(),
            !keys.contains(where: { $0.keys == DataPath(dotted: reference.field).keys })
        {
            return invalid(
                "HTTPRecordEndpoints.clientReference", "a field the model's remote key set has",
                fix: "give the model a property keyed \"\(reference.field)\" in its remote key set (a UUID it sets "
                    + "when it creates a record), or name one it has")
        }
        if let error = versionDeclarationError(modelType: modelType)
            ?? writeDeclarationError(modelType: modelType, remoteKeys: remoteKeys())
        {
            return error
        }
        if let batch, batch.maximumRequests < 1 {
            return invalid(
                "HTTPBatchEndpoint.maximumRequests", "at least 1",
                fix: "declare the server's limit of writes per batch (PocketBase: its batch.maxRequests setting, 50 "
                    + "by default)")
        }
        let lookUps = [("clientReference.lookUp", clientReference?.lookUp), ("lookingUpChosenIDs", chosenIDLookUp)]
        for (setting, lookUp) in lookUps {
            guard let lookUp, let problem = lookUp.problem else { continue }
            return invalid("HTTPRecordEndpoints.\(setting)", problem.requirement, fix: problem.fix)
        }
        if let problem = newIDs.problem {
            return invalid(
                "HTTPRecordEndpoints.newIDs", "a length of at least 1 and 2 or more distinct characters",
                fix: "declare `newIDs` with \(problem)")
        }
        return nil
    }

    /// The open-time mistake in how the endpoints send a version with
    /// ``HTTPRecordEndpoints/Concurrency/versionInBody``, named after `modelType`; `nil` when there is none.
    private func versionDeclarationError(modelType: String) -> DeclarationError? {
        func invalid(_ setting: String, _ requirement: String, fix: String) -> DeclarationError {
            DeclarationError(.invalidSetting(setting, requirement: requirement), modelType: modelType, fix: fix)
        }
        if case .versionInBody = concurrency, versionField == nil {
            return invalid(
                "HTTPRecordEndpoints.concurrency", "a versionField with .versionInBody, to send on updates and deletes",
                fix: "declare versionField (e.g. \"lock_version\") and, for deletes, deleteVersion: "
                    + ".query(\"lock_version\") or .body")
        }
        guard let deleteVersion else { return nil }
        if !concurrency.isInBody {
            return invalid(
                "HTTPRecordEndpoints.deleteVersion",
                "concurrency: .versionInBody (If-Match carries a delete's version)",
                fix: "remove deleteVersion, or declare concurrency: .versionInBody")
        }
        if case .query(let name) = deleteVersion, name.isEmpty || !HTTPRequestHead.isSafeHeaderText(name) {
            return invalid(
                "HTTPRecordEndpoints.deleteVersion", "a query parameter with a name, without a line break or NUL",
                fix: "name the parameter the server reads the version from, e.g. .query(\"lock_version\")")
        }
        return nil
    }

    /// The first path of the write declaration (`readOnlyFields`, and `versionField` when the body
    /// carries the version) that misses the model's remote key set, or an unsafe media type, named
    /// after `modelType`. A path misses when it is nested and no property is at it or inside it
    /// (`attributes.updatd_at`), or when its name is a property's at another path (`updated_at` for a
    /// model keyed `attributes.updated_at`); a top-level field of the server's own that the model does
    /// not map (`deleted`) is accepted.
    private func writeDeclarationError(modelType: String, remoteKeys: [DataPath]?) -> DeclarationError? {
        let paths = remoteKeys?.map(\.keys) ?? []
        var declared = readOnlyFields.sorted().map { ("HTTPRecordEndpoints.readOnlyFields", $0) }
        if concurrency.isInBody, let version = versionField {
            declared.append(("HTTPRecordEndpoints.versionField", version))
        }
        for (setting, field) in declared {
            let keys = DataPath(dotted: field).keys
            // Carried when a property is at the path or inside it (`attributes` holds `attributes.name`).
            if paths.contains(where: { $0.starts(with: keys) }) { continue }
            let elsewhere = paths.first { $0.last == keys.last }
            guard keys.count > 1 || elsewhere != nil else { continue }
            let named =
                elsewhere.map { "\"\($0.joined(separator: "."))\"" } ?? "a path such as \"attributes.updated_at\""
            return DeclarationError(
                .invalidSetting(setting, requirement: "a path the model's remote key set has"), modelType: modelType,
                fix: "name \"\(field)\" as the remote key set does (\(named)), or remove it")
        }
        let media = writes.mediaType
        for type in [media.post, media.put, media.patch, media.delete, media.get]
        where type.isEmpty || !HTTPRequestHead.isSafeHeaderText(type) {
            return DeclarationError(
                .invalidSetting("HTTPWriteShape.mediaType", requirement: "a media type without a line break or NUL"),
                modelType: modelType, fix: "declare a media type such as \"application/vnd.api+json\"")
        }
        return nil
    }
}

extension HTTPRecordEndpoints.Concurrency {
    /// Whether the version travels in the record's body.
    var isInBody: Bool {
        if case .versionInBody = self { return true }
        return false
    }
}
