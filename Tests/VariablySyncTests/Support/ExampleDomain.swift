import UserSyncModels

/// The example domain's comment, for every test file: a file that imports both Testing and
/// UserSyncModels finds two top-level `Comment`s (Testing's, the text of an issue or trait, and the
/// domain's), and Swift refuses the name as ambiguous. A declaration of this module wins over imported
/// ones; Testing's stays reachable as `Testing.Comment`.
typealias Comment = UserSyncModels.Comment
