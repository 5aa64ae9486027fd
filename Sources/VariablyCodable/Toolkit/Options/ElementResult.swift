/// The outcome of decoding one element, so that a failure does not stop the container from moving on
/// to the next element.
struct ElementResult<Element: Decodable>: Decodable {
    let result: Result<Element, DecodingError>

    init(from decoder: any Decoder) {
        do {
            result = .success(try decoder.singleValueContainer().decode(Element.self))
        } catch let error as DecodingError {
            result = .failure(error)
        } catch {
            result = .failure(
                DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: decoder.codingPath, debugDescription: "\(error)", underlyingError: error)))
        }
    }
}
