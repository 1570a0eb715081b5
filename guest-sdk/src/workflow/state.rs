//! What a replaying workflow shares with its awaits: the workflow core's replay state, whose
//! decisions are this SDK's.

/// One replay's state, behind the `Rc<RefCell<..>>` that the [`Workflow`](super::Workflow)
/// handle and every await hold.
pub(crate) type State = weft_workflow_core::replay::State<crate::Decision>;

/// How a command ended: its result, or why it failed.
pub(crate) type Outcome = Result<Option<String>, super::Error>;
