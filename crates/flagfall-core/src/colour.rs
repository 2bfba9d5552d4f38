//! The two colours, written one way everywhere: shakmaty's [`Color`] named for people
//! (`White`), for the formats (`white`, the game script, rulings, reports), as an index
//! into per-side arrays, and as serde (shakmaty is built without its `serde` feature).

use shakmaty::Color;

/// The colour in a sentence: `"White"` / `"Black"`.
pub fn name(c: Color) -> &'static str {
    c.fold_wb("White", "Black")
}

/// The colour as the formats write it: `"white"` / `"black"`.
pub fn key(c: Color) -> &'static str {
    c.fold_wb("white", "black")
}

/// The colour written as [`key`] gives it; `None` for anything else.
pub fn parse(text: &str) -> Option<Color> {
    match text {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

/// The colour's place in a per-side array: White 0, Black 1.
pub fn index(c: Color) -> usize {
    c.fold_wb(0, 1)
}

/// `#[serde(with = "flagfall_core::colour::serde")]`: a [`Color`] as [`key`] writes it.
pub mod serde {
    use ::serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Color;

    pub fn serialize<S: Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(super::key(*c))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        let text = String::deserialize(d)?;
        super::parse(&text).ok_or_else(|| {
            ::serde::de::Error::custom(format!("expected \"white\" or \"black\", found {text:?}"))
        })
    }
}

/// `#[serde(with = "flagfall_core::colour::serde_opt")]`: an optional [`Color`], `null`
/// when absent.
pub mod serde_opt {
    use ::serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Color;

    pub fn serialize<S: Serializer>(c: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
        match c {
            Some(c) => s.serialize_str(super::key(*c)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Color>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(text) => super::parse(&text).map(Some).ok_or_else(|| {
                ::serde::de::Error::custom(format!(
                    "expected \"white\", \"black\" or null, found {text:?}"
                ))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keys_indices_and_serde_agree() {
        for (c, n, k, i) in [
            (Color::White, "White", "white", 0),
            (Color::Black, "Black", "black", 1),
        ] {
            assert_eq!((name(c), key(c), index(c)), (n, k, i));
            assert_eq!(parse(k), Some(c));
            let json = serde_json::to_value(Wrapped { c, o: Some(c) }).expect("serialises");
            assert_eq!(json, serde_json::json!({"c": k, "o": k}));
            let back: Wrapped = serde_json::from_value(json).expect("deserialises");
            assert_eq!((back.c, back.o), (c, Some(c)));
        }
        assert_eq!(parse("White"), None);
        assert!(serde_json::from_str::<Wrapped>(r#"{"c":"red","o":null}"#).is_err());
        let none: Wrapped = serde_json::from_str(r#"{"c":"black","o":null}"#).expect("null");
        assert_eq!(none.o, None);
    }

    #[derive(::serde::Serialize, ::serde::Deserialize)]
    struct Wrapped {
        #[serde(with = "crate::colour::serde")]
        c: Color,
        #[serde(with = "crate::colour::serde_opt")]
        o: Option<Color>,
    }
}
