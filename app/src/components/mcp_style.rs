//! Styles of the MCP settings page, injected by the page itself (with `<Style>`) so they load only
//! there; they build on the variables and button classes of style/main.css.

pub const MCP_CSS: &str = r#"
.settings h1 { margin-top: 0; }
.mcp-intro { color: var(--muted); }
.mcp-server { border: 1px solid var(--line); border-left-width: 4px; border-radius: 10px; padding: .8rem 1rem; margin: .8rem 0; background: var(--panel); }
.mcp-server.state-connected { border-left-color: var(--ok); }
.mcp-server.state-connecting { border-left-color: var(--accent); }
.mcp-server.state-failed, .mcp-server.state-offline { border-left-color: var(--danger); }
.mcp-server h3 { margin: 0 0 .3rem; }
.mcp-state, .mcp-info, .mcp-reach { margin: .2rem 0; }
.mcp-state.state-connected strong { color: var(--ok); }
.mcp-state.state-failed strong, .mcp-state.state-offline strong { color: var(--danger); }
.mcp-reach code { word-break: break-all; }
.mcp-controls, .mcp-form-buttons, .mcp-confirm { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
.mcp-confirm { border: 1px solid var(--danger); border-radius: 8px; padding: .4rem .8rem; background: #fff6f5; }
.mcp-confirm p { margin: 0; flex-basis: 100%; }
.mcp-tools { width: 100%; border-collapse: collapse; margin-top: .6rem; font-size: .9rem; }
.mcp-tools caption { text-align: left; font-weight: 600; padding-bottom: .3rem; }
.mcp-tools th, .mcp-tools td { text-align: left; padding: .3rem .4rem; border-top: 1px solid var(--line); vertical-align: top; }
.mcp-tools thead th { border-top: none; color: var(--muted); font-weight: 500; }
.mcp-tools th[scope="row"] { font-weight: normal; }
.mcp-tool-about { display: block; color: var(--muted); font-size: .85rem; }
.mcp-tools td.risk strong { text-transform: uppercase; padding: .05rem .4rem; border-radius: 4px; color: #fff; font-size: .8rem; }
.badge { display: inline-block; font-size: .75rem; padding: .05rem .4rem; border-radius: 4px; border: 1px solid var(--line); margin-right: .2rem; }
.badge-destructive { color: var(--danger); border-color: var(--danger); }
.badge-read-only { color: var(--ok); border-color: var(--ok); }
.badge-offline { color: var(--muted); }
.mcp-form, .mcp-import-export { border: 1px solid var(--line); border-radius: 10px; padding: .8rem 1rem; margin: 1rem 0; background: var(--panel); }
.mcp-form h3, .mcp-import-export h3 { margin: 0 0 .5rem; }
.mcp-form > label, .mcp-import-export > label, .mcp-form fieldset { display: flex; flex-direction: column; gap: .2rem; margin: .5rem 0; font-size: .9rem; }
.mcp-form fieldset { border: 1px solid var(--line); border-radius: 6px; }
.mcp-form fieldset label { display: flex; gap: .4rem; align-items: center; }
.mcp-form > label:has(input[type="checkbox"]) { flex-direction: row; align-items: center; gap: .4rem; }
.mcp-form input[type="text"], .mcp-form input[type="url"], .mcp-form textarea, .mcp-import-export textarea { font: inherit; padding: .4rem; border: 1px solid var(--line); border-radius: 6px; width: 100%; }
.mcp-form textarea, .mcp-import-export textarea { font-family: ui-monospace, monospace; }
.mcp-form input[readonly] { background: #f0f0f3; }
.hint { color: var(--muted); font-size: .85rem; }
"#;
