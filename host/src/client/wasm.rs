//! The client's calls of Weft's `/v1` modules and bindings: uploads, binds, rollbacks, ramps
//! and upgrades, and what bound guests failed.

use crate::model::routes;
use hyper::Method;
use serde::de::IgnoredAny;
use tokio::sync::oneshot;

use super::{
    Bind, Binding, BindingKind, BindingList, Client, ClientError, Exchange, FailureList,
    GuestFailureRecord, ModuleLabel, ModuleList, ModuleRecord, UpgradeQuery, UpgradeReport,
};

impl Client {
    /// Uploads a module's bytes; answers its record.
    pub async fn upload_module(&self, code: Vec<u8>) -> Result<ModuleRecord, ClientError> {
        self.upload_module_telling(code, &ModuleLabel::default(), None)
            .await
    }

    /// Like [`Client::upload_module`], giving the module `label`'s name and version; `sent`
    /// hears when the bytes are uploaded and the server has begun compiling them.
    pub async fn upload_module_telling(
        &self,
        code: Vec<u8>,
        label: &ModuleLabel,
        sent: Option<oneshot::Sender<()>>,
    ) -> Result<ModuleRecord, ClientError> {
        let query = serde_urlencoded::to_string(label).map_err(|e| self.protocol(e))?;
        let path = match query.as_str() {
            "" => routes::MODULES.to_owned(),
            query => format!("{}?{query}", routes::MODULES),
        };
        let request = Exchange {
            sent,
            ..Exchange::new(Method::POST, path)
        };
        self.call_with(request, Some(("application/wasm", code)))
            .await
    }

    /// Has the server check a module's bytes as an upload would (its quota, that it is a
    /// component, its world) and store nothing; answers the record it would store.
    pub async fn check_module(
        &self,
        code: Vec<u8>,
        label: &ModuleLabel,
    ) -> Result<ModuleRecord, ClientError> {
        let query = serde_urlencoded::to_string(label).map_err(|e| self.protocol(e))?;
        let path = match query.as_str() {
            "" => format!("{}?dryRun=true", routes::MODULES),
            query => format!("{}?{query}&dryRun=true", routes::MODULES),
        };
        self.call(Method::POST, path, Some(("application/wasm", code)))
            .await
    }

    /// Has the server check a binding's name, limits, concurrency and HTTP grants as binding
    /// would, and bind nothing.
    pub async fn check_bind(
        &self,
        domain: &str,
        kind: BindingKind,
        name: &str,
        bind: &Bind,
    ) -> Result<(), ClientError> {
        let body = serde_json::to_vec(bind).map_err(|e| self.protocol(e))?;
        let path = format!("{}?dryRun=true", binding_path(domain, kind, name));
        let _: IgnoredAny = self
            .call(Method::PUT, path, Some(("application/json", body)))
            .await?;
        Ok(())
    }

    /// The modules, by digest.
    pub async fn list_modules(&self) -> Result<Vec<ModuleRecord>, ClientError> {
        let list: ModuleList = self.call(Method::GET, routes::MODULES.into(), None).await?;
        Ok(list.modules)
    }

    /// Deletes a module no binding uses.
    pub async fn delete_module(&self, digest: &str) -> Result<(), ClientError> {
        let path = routes::fill(routes::MODULE, &[digest]);
        let _: IgnoredAny = self.call(Method::DELETE, path, None).await?;
        Ok(())
    }

    /// Binds a module to serve `kind` `name` in `domain`; answers the binding.
    pub async fn bind(
        &self,
        domain: &str,
        kind: BindingKind,
        name: &str,
        bind: &Bind,
    ) -> Result<Binding, ClientError> {
        let body = serde_json::to_vec(bind).map_err(|e| self.protocol(e))?;
        let path = binding_path(domain, kind, name);
        self.call(Method::PUT, path, Some(("application/json", body)))
            .await
    }

    /// The domain's bindings, by kind then name.
    pub async fn list_bindings(&self, domain: &str) -> Result<Vec<Binding>, ClientError> {
        let path = routes::fill(routes::BINDINGS, &[domain]);
        let list: BindingList = self.call(Method::GET, path, None).await?;
        Ok(list.bindings)
    }

    /// Removes a binding.
    pub async fn unbind(
        &self,
        domain: &str,
        kind: BindingKind,
        name: &str,
    ) -> Result<(), ClientError> {
        let path = binding_path(domain, kind, name);
        let _: IgnoredAny = self.call(Method::DELETE, path, None).await?;
        Ok(())
    }

    /// Binds `kind` `name` in `domain` back to the module it ran before; answers the binding.
    pub async fn rollback(
        &self,
        domain: &str,
        kind: BindingKind,
        name: &str,
    ) -> Result<Binding, ClientError> {
        let path = routes::fill(routes::BINDING_ROLLBACK, &[domain, kind.name(), name]);
        let body = Some(("application/json", b"{}".to_vec()));
        self.call(Method::POST, path, body).await
    }

    /// Ends the ramp of decision binding `list` in `domain`; answers the binding.
    pub async fn promote(&self, domain: &str, list: &str) -> Result<Binding, ClientError> {
        let decision = BindingKind::Decision.name();
        let path = routes::fill(routes::BINDING_PROMOTE, &[domain, decision, list]);
        let body = Some(("application/json", b"{}".to_vec()));
        self.call(Method::POST, path, body).await
    }

    /// Upgrades the open runs of decision task list `list` in `domain` pinned to modules
    /// other than its binding's current one (see [`UpgradeQuery`]); answers what it did.
    pub async fn upgrade(
        &self,
        domain: &str,
        list: &str,
        query: &UpgradeQuery,
    ) -> Result<UpgradeReport, ClientError> {
        let query = serde_urlencoded::to_string(query).map_err(|e| self.protocol(e))?;
        let decision = BindingKind::Decision.name();
        let upgrade = routes::fill(routes::BINDING_UPGRADE, &[domain, decision, list]);
        let path = format!("{upgrade}?{query}");
        let body = Some(("application/json", b"{}".to_vec()));
        self.call(Method::POST, path, body).await
    }

    /// A binding's latest failures, oldest first.
    pub async fn failures(
        &self,
        domain: &str,
        kind: BindingKind,
        name: &str,
    ) -> Result<Vec<GuestFailureRecord>, ClientError> {
        let path = routes::fill(routes::BINDING_FAILURES, &[domain, kind.name(), name]);
        let list: FailureList = self.call(Method::GET, path, None).await?;
        Ok(list.failures)
    }
}

pub(super) fn binding_path(domain: &str, kind: BindingKind, name: &str) -> String {
    routes::fill(routes::BINDING, &[domain, kind.name(), name])
}
