//! Uploading real components through Weft's `/v1` client: the record each answers, uploading the
//! same bytes again, what is refused (a module bound to the wrong kind), and
//! deleting a module that is still bound.

use sha2::{Digest as _, Sha256};
use weft_tests::guests::{self, Bind, BindingKind, ClientError, ModuleRecord, WeftClient};

use super::server;
use crate::flow::D;

/// The sha256 of `bytes`, in lowercase hex.
fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The status, code and message of a refused call.
#[track_caller]
fn refused<T: std::fmt::Debug>(result: Result<T, ClientError>) -> (u16, String, String) {
    match result {
        Err(ClientError::Refused {
            status,
            code,
            message,
        }) => (status, code, message),
        other => panic!("expected a refusal: {other:?}"),
    }
}

/// Uploads guest `name`; its record.
async fn upload(weft: &WeftClient, name: &str) -> ModuleRecord {
    weft.upload_module(guests::guest(name))
        .await
        .unwrap_or_else(|e| panic!("upload {name}: {e}"))
}

#[tokio::test]
async fn uploads_answer_the_module_and_the_same_bytes_answer_the_same_record() {
    let (server, _c, weft) = server().await;
    let mut records = Vec::new();
    for (name, world) in [
        ("order-decider", "decider"),
        ("order-activities", "activity-worker"),
        ("quote-decider", "decider"),
        ("price-function", "function"),
    ] {
        let code = guests::guest(name);
        let record = weft.upload_module(code.clone()).await.unwrap();
        assert_eq!(record.digest, sha256(&code), "{name}");
        assert_eq!(record.world.name(), world, "{name}");
        assert_eq!(record.size, code.len() as u64, "{name}");
        assert!(record.uploaded_at.as_millis() > 0, "{name}: {record:?}");
        let again = weft.upload_module(code).await.unwrap();
        assert_eq!(
            again, record,
            "{name}: uploading again answers the first record"
        );
        records.push(record);
    }
    records.sort_by(|a, b| a.digest.cmp(&b.digest));
    assert_eq!(weft.list_modules().await.unwrap(), records);
    // On the wire, a record has just these members.
    let listed = server.http("GET", "/v1/modules", b"").await.json();
    let members: Vec<&String> = listed["modules"][0].as_object().unwrap().keys().collect();
    assert_eq!(
        members,
        ["digest", "size", "uploadedAt", "world"],
        "{listed}"
    );
}

#[tokio::test]
async fn a_module_of_the_wrong_world_is_refused() {
    let (_server, _c, weft) = server().await;
    for (name, world, kind, wanted) in [
        (
            "hostile-decider",
            "decider",
            BindingKind::Activity,
            "an activity-worker",
        ),
        (
            "order-activities",
            "activity-worker",
            BindingKind::Function,
            "a function",
        ),
        (
            "price-function",
            "function",
            BindingKind::Decision,
            "a decider",
        ),
    ] {
        let digest = upload(&weft, name).await.digest;
        let bound = weft.bind(D, kind, "work", &Bind::module(&digest)).await;
        let (status, code, message) = refused(bound);
        assert_eq!(
            (status, code.as_str()),
            (400, "ValidationException"),
            "{name}"
        );
        let article = if world.starts_with('a') { "an" } else { "a" };
        let kind_article = if kind == BindingKind::Activity {
            "an"
        } else {
            "a"
        };
        assert_eq!(
            message,
            format!(
                "Module {digest} is {article} {world}; {kind_article} {} binding needs {wanted}",
                kind.name()
            )
        );
    }
    assert_eq!(weft.list_bindings(D).await.unwrap(), []);
}

#[tokio::test]
async fn a_bound_module_is_deleted_only_once_unbound() {
    let (_server, _c, weft) = server().await;
    let list = guests::order::ACTIVITY_TASK_LIST;
    let digest = guests::deploy(
        &weft,
        "order-activities",
        D,
        BindingKind::Activity,
        list,
        Bind::default(),
    )
    .await;
    let (status, code, message) = refused(weft.delete_module(&digest).await);
    assert_eq!((status, code.as_str()), (409, "ResourceInUseException"));
    assert_eq!(
        message,
        format!("Module {digest} is bound: {D} activity {list}")
    );
    assert_eq!(weft.list_modules().await.unwrap()[0].digest, digest);

    weft.unbind(D, BindingKind::Activity, list).await.unwrap();
    weft.delete_module(&digest).await.unwrap();
    assert_eq!(weft.list_modules().await.unwrap(), []);
    let (status, code, _) = refused(weft.delete_module(&digest).await);
    assert_eq!((status, code.as_str()), (404, "UnknownResourceFault"));
}
