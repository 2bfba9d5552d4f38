//! serde helpers for shakmaty types (shakmaty is built without its `serde` feature).

/// `Square` as `"e4"`.
pub mod square {
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Square;

    pub fn serialize<S: Serializer>(sq: &Square, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(sq)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        let text = String::deserialize(d)?;
        Square::from_ascii(text.as_bytes())
            .map_err(|_| serde::de::Error::custom(format!("{text:?} is not a square")))
    }
}

/// `Option<Piece>` as a FEN letter (`"Q"`, `"p"`) or null.
pub mod opt_piece {
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Piece;

    pub fn serialize<S: Serializer>(p: &Option<Piece>, s: S) -> Result<S::Ok, S::Error> {
        match p {
            Some(p) => s.serialize_char(p.char()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Piece>, D::Error> {
        let c = Option::<char>::deserialize(d)?;
        match c {
            None => Ok(None),
            Some(c) => Piece::from_char(c)
                .map(Some)
                .ok_or_else(|| serde::de::Error::custom(format!("{c:?} is not a piece letter"))),
        }
    }
}

/// `Option<SanPlus>` as the SAN string (`"Nf3+"`) or null.
pub mod opt_san {
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::san::SanPlus;

    pub fn serialize<S: Serializer>(san: &Option<SanPlus>, s: S) -> Result<S::Ok, S::Error> {
        match san {
            Some(san) => s.collect_str(san),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SanPlus>, D::Error> {
        let text = Option::<String>::deserialize(d)?;
        match text {
            None => Ok(None),
            Some(t) => SanPlus::from_ascii(t.as_bytes())
                .map(Some)
                .map_err(|_| serde::de::Error::custom(format!("{t:?} is not SAN"))),
        }
    }
}
