/**
 * `/ui/app.css`: the console's only style sheet. Colours keep a contrast of at least 4.5:1 (text)
 * against their background; a state is always written out, never told by colour alone. Tables
 * scroll sideways inside their region on a narrow screen.
 */
export const CONSOLE_STYLE = `
:root { color-scheme: light; --ink: #1a1a1a; --muted: #4a4a4a; --line: #d0d4da; --bg: #f7f8fa; --card: #ffffff; --accent: #1f4e79; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 1rem; padding: 0.75rem 1rem; background: var(--accent); color: #fff; }
header h1 { font-size: 1.2rem; margin: 0 auto 0 0; }
header p { margin: 0; }
header button { background: #fff; color: var(--accent); }
main { padding: 0.5rem 1rem 2rem; max-width: 1400px; margin: 0 auto; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 0.5rem 0.75rem; margin: 0.75rem 0; }
h2 { font-size: 1.05rem; margin: 0.25rem 0; }
.note { color: var(--muted); margin: 0 0 0.5rem; font-size: 0.9rem; }
.empty { color: var(--muted); margin: 0.25rem 0; }
.problem { color: #8a1020; font-weight: 600; }
.scroll { overflow-x: auto; }
.scroll:focus-visible, button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid #f2b200; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { color: var(--muted); font-weight: 600; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.85rem; }
.badge { display: inline-block; padding: 0 0.45rem; border-radius: 999px; font-weight: 600; }
.state-closed, .health-healthy, .within { background: #e3f2e6; color: #17521f; }
.state-half_open, .health-recovering, .health-degraded { background: #fff1cc; color: #6b4300; }
.state-open, .health-down, .at-bound { background: #fde4e7; color: #8a1020; }
.health-unknown { background: #eceff3; color: #3a3f47; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 0.75rem; }
.chart { margin: 0; }
.chart figcaption { font-weight: 600; font-size: 0.9rem; }
.chart svg { width: 100%; height: 90px; background: #fbfcfd; border: 1px solid var(--line); border-radius: 4px; }
.chart .axis { stroke: #9aa3ad; stroke-width: 1; }
.chart .line { fill: none; stroke-width: 2; vector-effect: non-scaling-stroke; }
.chart .calls, .chart .p50 { stroke: #1f5fa8; }
.chart .errors, .chart .p99 { stroke: #b3261e; }
.legend { margin: 0.15rem 0 0; color: var(--muted); font-size: 0.85rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
button { font: inherit; padding: 0.3rem 0.9rem; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.danger { background: #8a1020; border-color: #8a1020; }
td button { padding: 0.1rem 0.6rem; }
dialog { max-width: 32rem; border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem 1rem; }
dialog::backdrop { background: rgba(0, 0, 0, 0.4); }
dialog .actions { display: flex; gap: 0.5rem; justify-content: flex-end; margin: 0.75rem 0 0; }
.login { max-width: 26rem; margin: 3rem auto; }
.login form { display: grid; gap: 0.5rem; margin: 1rem 0; }
.login input { font: inherit; padding: 0.45rem; border: 1px solid #6b7280; border-radius: 4px; }
@media (max-width: 600px) { main { padding: 0.25rem 0.5rem 1rem; } section { padding: 0.4rem 0.5rem; } }
`;
