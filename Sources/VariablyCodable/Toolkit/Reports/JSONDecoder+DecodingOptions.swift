public import Foundation

extension JSONDecoder {
    /// The toolkit options in `userInfo[.decodingOptions]`.
    ///
    /// ```swift
    /// decoder.decodingOptions.isLenient = true
    /// ```
    public var decodingOptions: DecodingOptions {
        get { userInfo[.decodingOptions] as? DecodingOptions ?? DecodingOptions() }
        set { userInfo[.decodingOptions] = newValue }
    }
}

extension PropertyListDecoder {
    /// The toolkit options in `userInfo[.decodingOptions]`.
    ///
    /// ```swift
    /// decoder.decodingOptions.report = report
    /// ```
    public var decodingOptions: DecodingOptions {
        get { userInfo[.decodingOptions] as? DecodingOptions ?? DecodingOptions() }
        set { userInfo[.decodingOptions] = newValue }
    }
}
