//! The function `price` of the quote example: the price of one line item,
//! `{"sku", "quantity"}` → `{"sku", "quantity", "unit_cents", "line_cents"}`, from a fixed price
//! list. An unknown sku or a zero quantity fails.

use serde_json::{Value, json};
use weft_guest::Failure;

weft_guest::function!(price);

/// The price list, in cents.
const PRICES: [(&str, u64); 4] = [
    ("teapot", 2500),
    ("tea", 450),
    ("mug", 800),
    ("strainer", 300),
];

/// Prices one line item.
pub fn price(input: Option<String>) -> Result<Option<String>, Failure> {
    let item: Value = serde_json::from_str(input.as_deref().unwrap_or_default())
        .map_err(|e| Failure::new("the input is not JSON").details(e.to_string()))?;
    let sku = item["sku"].as_str().unwrap_or_default();
    let quantity = item["quantity"].as_u64().unwrap_or(0);
    let Some(&(_, unit_cents)) = PRICES.iter().find(|(known, _)| *known == sku) else {
        return Err(Failure::new("unknown sku").details(sku));
    };
    if quantity == 0 {
        return Err(Failure::new("the quantity must be positive").details(sku));
    }
    weft_guest::log::debug!("{quantity} x {sku} at {unit_cents}");
    let line = json!({
        "sku": sku,
        "quantity": quantity,
        "unit_cents": unit_cents,
        "line_cents": unit_cents * quantity,
    });
    Ok(Some(line.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn priced(input: &str) -> Result<Value, Failure> {
        price(Some(input.into())).map(|out| serde_json::from_str(&out.unwrap()).unwrap())
    }

    #[test]
    fn a_known_item_is_priced_by_quantity() {
        assert_eq!(
            priced(r#"{"sku":"tea","quantity":3}"#),
            Ok(json!({"sku": "tea", "quantity": 3, "unit_cents": 450, "line_cents": 1350}))
        );
    }

    #[test]
    fn unknown_items_zero_quantities_and_bad_input_fail() {
        assert_eq!(
            priced(r#"{"sku":"samovar","quantity":1}"#),
            Err(Failure::new("unknown sku").details("samovar"))
        );
        assert_eq!(
            priced(r#"{"sku":"tea","quantity":0}"#),
            Err(Failure::new("the quantity must be positive").details("tea"))
        );
        assert_eq!(
            priced("[").unwrap_err().reason.as_deref(),
            Some("the input is not JSON")
        );
        assert!(price(None).is_err());
    }
}
