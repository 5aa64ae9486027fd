// Class hierarchies: `KeySetDescribable` needs `KeySets<Self>`, which a non-final class cannot
// provide for its subclasses. Instead each class keeps its own `KeySets` of the properties it declares,
// decodes them with `DecodingContainer(decoder:keySets:)` and encodes them with `KeySets.encode(_:to:)`,
// then calls its superclass, which does the same with its own key sets. All write one flat object.
//
// ```swift
// class Animal: Codable {
//     var name: String
//     static let animalKeys = KeySets<Animal>(defaultSource: .remote) {
//         KeySet(.remote) { Key(\.name, "animal_name") }
//     }
//     required init(from decoder: any Decoder) throws {
//         let container = try DecodingContainer(decoder: decoder, keySets: Animal.animalKeys)
//         name = try container.decode(\.name)
//     }
//     func encode(to encoder: any Encoder) throws {
//         try Animal.animalKeys.encode(self, to: encoder)
//     }
// }
//
// final class Dog: Animal {
//     var breed: String
//     static let dogKeys = KeySets<Dog>(defaultSource: .remote) {
//         KeySet(.remote) { Key(\.breed, "dog_breed") }
//     }
//     required init(from decoder: any Decoder) throws {
//         let container = try DecodingContainer(decoder: decoder, keySets: Dog.dogKeys)
//         breed = try container.decode(\.breed)
//         try super.init(from: decoder)
//     }
//     override func encode(to encoder: any Encoder) throws {
//         try Dog.dogKeys.encode(self, to: encoder)
//         try super.encode(to: encoder)
//     }
// }
// ```
//
// The two entry points live with the coders: `DecodingContainer(decoder:keySets:)` in
// Coders/DecodingContainer+Decoder.swift and `KeySets.encode(_:to:)` in Coders/KeySets+Encoder.swift;
// `VariablyDecodable` and `VariablyEncodable` use them too.
