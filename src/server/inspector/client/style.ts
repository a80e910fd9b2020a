/** The inspector's stylesheet, served as `/inspector/app.css` (no inline styles, so it works under a strict CSP). */
export const APP_CSS = String.raw`
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#f3f4f7}
a{color:#1f5fbf}
:focus-visible{outline:3px solid #2f6fdb;outline-offset:2px}
.skip{position:absolute;left:-9999px;top:0;background:#fff;padding:6px 10px;z-index:10}.skip:focus{left:8px;top:8px}
header{background:#1d2330;color:#fff;padding:8px 18px;display:flex;flex-wrap:wrap;gap:8px 18px;align-items:center}
header h1{font-size:16px;margin:0;font-weight:600}header .sub{opacity:.7;font-size:12px}
#keyform{margin-left:auto;display:flex;gap:6px;align-items:center;font-size:12px}
#keyform label{opacity:.85}
#keyform input{width:200px;padding:5px 8px;border:1px solid #59627a;border-radius:4px;background:#2a3142;color:#fff;font:inherit}
#keyform button{padding:5px 10px;border:1px solid #59627a;border-radius:4px;background:#2a3142;color:#fff;cursor:pointer;font:inherit}
#keyform button:hover{background:#3a4358}
#keystate{min-width:9em;opacity:.9}#keystate.on{color:#9be3b0}#keystate.refused{color:#ffb4a8}
nav.views{display:flex;gap:2px;padding:0 18px;background:#262d3d}
nav.views button{border:0;background:none;color:#c9cfdb;padding:8px 14px;font:inherit;cursor:pointer;border-bottom:3px solid transparent}
nav.views button[aria-current="page"]{color:#fff;border-bottom-color:#6ea0ff;font-weight:600}
nav.views button:hover{color:#fff}
main{padding:14px 16px}
.layout{display:grid;grid-template-columns:230px minmax(0,1fr);gap:14px;align-items:start}
#detail{position:fixed;top:0;right:0;bottom:0;width:min(480px,100vw);overflow:auto;z-index:5;border-radius:0;border-width:0 0 0 1px;box-shadow:-10px 0 30px rgba(20,24,33,.25);padding:16px}
.episodes.layout{grid-template-columns:230px 360px minmax(0,1fr)}
.panel{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:12px;min-width:0;overflow-wrap:anywhere}
h2{font-size:12px;text-transform:uppercase;letter-spacing:.05em;margin:0 0 8px;color:#4f5a70}
h3{font-size:12px;margin:14px 0 6px;color:#4f5a70;text-transform:uppercase;letter-spacing:.04em}
.nslist{list-style:none;margin:8px 0;padding:0;max-height:60vh;overflow:auto}.nslist li{margin:1px 0}
.nslist button{width:100%;text-align:left;border:0;background:none;padding:5px 6px;border-radius:4px;cursor:pointer;font:inherit;display:flex;justify-content:space-between;gap:8px;color:inherit}
.nslist button:hover,.nslist button.active{background:#e6edfc}.nslist button.active{font-weight:600}
.count{color:#5a6478;font-size:12px;font-weight:400}
.muted{color:#6b7489}
input,select{padding:5px 8px;border:1px solid #b9c0cc;border-radius:4px;font:inherit;background:#fff;color:inherit;min-width:0}
button.act{padding:5px 10px;border:1px solid #b9c0cc;border-radius:4px;background:#fff;cursor:pointer;font:inherit;color:#1d2330;white-space:nowrap}
button.act:hover{background:#f0f3f8}
button.act:disabled{opacity:.45;cursor:not-allowed}
button.danger{border-color:#c9302c;color:#a4211d}button.danger:hover{background:#fdeceb}
button.primary-danger{background:#c9302c;border-color:#c9302c;color:#fff}button.primary-danger:hover{background:#a92824}
button.primary{background:#2f6fdb;border-color:#2f6fdb;color:#fff}button.primary:hover{background:#2459b5}
form.inline{display:flex;gap:6px;margin-top:8px}form.inline input{flex:1}
.field{display:flex;flex-direction:column;gap:2px;font-size:12px;color:#4f5a70}
.controls{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end;margin:6px 0 10px}
.controls .grow{flex:1 1 180px}
.toolbar{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:10px}
.toolbar button{max-width:100%;overflow:hidden;text-overflow:ellipsis}
.toolbar h2{font-size:15px;text-transform:none;letter-spacing:0;color:#1d2330;margin:0;overflow-wrap:anywhere}
table{width:100%;border-collapse:collapse;table-layout:auto}
th,td{text-align:left;padding:6px;border-bottom:1px solid #eceff3;vertical-align:top}
th{font-size:12px;color:#4f5a70;font-weight:600;white-space:nowrap}
td.text{overflow-wrap:break-word;min-width:200px}td.key{white-space:nowrap;font-family:ui-monospace,monospace;font-size:12px}
td.key.long{white-space:normal;overflow-wrap:anywhere;min-width:14ch}
.tablewrap{overflow-x:auto}
td.when{white-space:nowrap;font-size:12px}td.actions{white-space:nowrap}td.actions button+button{margin-left:4px}
td.score{font-variant-numeric:tabular-nums}
tr.selected td{background:#f2f6ff}
.src{font-size:11px;padding:1px 7px;border-radius:9px;background:#eceff3;white-space:nowrap}.src.extractor{background:#ddf2e4}.src.tool{background:#fff0cf}.src.inspector{background:#e6e0fa}
.pager{display:flex;align-items:center;gap:10px;margin:4px 0 8px}.pager .range{font-variant-numeric:tabular-nums}
.notice{border:1px solid #e0b252;background:#fff8e6;border-radius:6px;padding:10px 12px;margin:8px 0}
.notice.refused{border-color:#d9534f;background:#fdeeed}
.notice strong{display:block;margin-bottom:2px}
#status{min-height:30px;display:flex;align-items:center;gap:6px;color:#3d4659;font-size:13px;margin:8px 0 0}
dl.meta{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin:0;font-size:13px}dl.meta dt{color:#5a6478}dl.meta dd{margin:0;word-break:break-all}
pre.json{background:#1f2430;color:#e6e9ef;padding:10px;border-radius:5px;overflow:auto;max-height:340px;font:12px/1.45 ui-monospace,monospace;white-space:pre-wrap;word-break:break-word}
ol.history{list-style:none;padding:0;margin:0}ol.history li{border:1px solid #e3e6ec;border-radius:5px;padding:8px;margin-bottom:6px}
ol.history .vhead{font-size:12px;color:#4f5a70;margin-bottom:3px}ol.history .vbtns{margin-top:6px;display:flex;gap:6px}
.detail-head{display:flex;justify-content:space-between;align-items:center}.detail-head h2{text-transform:none;letter-spacing:0;font-size:14px;color:#1d2330;overflow-wrap:anywhere}
.threads{list-style:none;padding:0;margin:0}.threads li{margin:0 0 6px}
.threads button{width:100%;text-align:left;border:1px solid #e3e6ec;border-radius:5px;background:#fff;padding:8px;cursor:pointer;font:inherit;color:inherit}
.threads button:hover,.threads button.active{border-color:#6ea0ff;background:#f2f6ff}
.threads .tid{font-weight:600;word-break:break-all}.threads .tmeta{font-size:12px;color:#5a6478}.threads .tprev{font-size:13px;margin-top:3px}
ol.chat{list-style:none;padding:0;margin:0}
ol.chat li{max-width:80%;margin:0 0 10px;padding:8px 10px;border-radius:8px;background:#eef1f6}
ol.chat li.assistant{margin-left:auto;background:#e3ecfd}
ol.chat .who{font-size:12px;color:#4f5a70;margin-bottom:2px}ol.chat .who b{color:#1d2330}
ol.chat li.daybreak{max-width:none;background:none;text-align:center;font-size:12px;color:#6b7489;padding:2px}
ol.chat p{margin:0;white-space:pre-wrap;word-break:break-word}
dialog{border:0;border-radius:8px;padding:0;max-width:520px;width:92vw;box-shadow:0 12px 40px rgba(0,0,0,.35)}
dialog::backdrop{background:rgba(20,24,33,.55)}
dialog form{padding:18px}
dialog h2{font-size:17px;text-transform:none;letter-spacing:0;color:#1d2330;margin:0 0 8px}
dialog .details{background:#f5f6f8;border-radius:5px;padding:8px 10px;margin:8px 0;font-size:13px;word-break:break-word;list-style:none}
dialog .warn{color:#a4211d;font-weight:600}dialog .note{color:#3d4659}
dialog .typed{display:flex;flex-direction:column;gap:4px;margin:10px 0}
dialog .buttons{display:flex;flex-direction:row-reverse;justify-content:flex-start;gap:8px;margin-top:14px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:1200px){th.created,td.created{display:none}.layout{grid-template-columns:200px minmax(0,1fr)}}
[hidden]{display:none!important}
`;
