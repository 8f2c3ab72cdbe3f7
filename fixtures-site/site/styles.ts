/**
 * The site's one stylesheet, inlined in every page. Fixed sizes, a generic font stack, no
 * transitions: the same state must render the same pixels. The only animation is the lazy
 * spinner, which is a declared volatile region.
 */
export const SITE_CSS = `
*{box-sizing:border-box}
html,body{margin:0;padding:0}
body{font-family:sans-serif;font-size:14px;line-height:20px;color:#1b1f1d;background:#f4f3ee}
a{color:#1d5c3f}
.site-header{height:48px;background:#1f3b2d;color:#fff;display:flex;align-items:center;padding:0 24px;gap:24px}
.site-header .brand{color:#fff;font-weight:bold;font-size:18px;text-decoration:none;width:220px}
.site-header nav{display:flex;gap:20px;flex:1}
.site-header nav a{color:#d8e8dc;text-decoration:none}
.clock{display:inline-block;width:110px;height:20px;text-align:right;font-family:monospace;color:#d8e8dc;overflow:hidden}
.page{width:1160px;margin:0 auto;padding:14px 0 40px}
h1{font-size:24px;line-height:32px;margin:4px 0 4px}
h2{font-size:17px;line-height:24px;margin:0 0 6px}
.back{display:inline-block;height:20px}
.meta{color:#4a524e;height:22px}
.meta span+span::before{content:" \\00b7  "}
.btn{font:inherit;font-size:14px;height:34px;padding:0 16px;border:1px solid #1f3b2d;border-radius:4px;background:#fff;color:#1f3b2d;cursor:pointer;text-decoration:none;display:inline-flex;align-items:center}
.btn.primary{background:#1f3b2d;color:#fff}
.btn.danger{border-color:#a4262c;color:#a4262c}
.btn.danger.solid{background:#a4262c;color:#fff}
input.text,textarea.text{font-family:sans-serif;font-size:15px;line-height:20px;padding:7px 10px;border:1px solid #8a948f;border-radius:4px;background:#fff;color:#1b1f1d;caret-color:transparent}
input.text:focus,textarea.text:focus{outline:2px solid #2f7a55;outline-offset:0}
.home{display:flex;flex-direction:column;align-items:center;padding-top:140px}
.home h1{font-size:34px;line-height:44px}
.home p{color:#4a524e;margin:0 0 28px}
.search-form{display:flex;flex-direction:column;align-items:center;gap:14px}
.search-input{width:560px;height:46px;font-size:18px!important}
.search-bar{display:flex;gap:10px;margin:8px 0 14px}
.search-bar .search-input{width:420px;height:36px;font-size:15px!important}
.results{list-style:none;margin:0;padding:0;width:820px}
.results li{height:44px;border-bottom:1px solid #d6d8d0}
.results a{display:flex;gap:14px;align-items:center;height:43px;padding:0 8px;text-decoration:none;color:#1b1f1d;white-space:nowrap;overflow:hidden}
.results .rid{font-weight:bold;width:70px;color:#1d5c3f}
.results .teams{width:360px;overflow:hidden;text-overflow:ellipsis}
.results .when{width:110px;color:#4a524e}
.results .deleted{color:#a4262c}
.results-group{margin:16px 0 4px;color:#4a524e;font-weight:bold}
.empty{padding:12px 0;color:#4a524e}
.innings-grid{display:grid;grid-template-columns:568px 568px;gap:24px;margin-top:10px}
.innings{background:#fff;border:1px solid #d6d8d0;border-radius:4px;padding:8px 10px}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{height:20px;padding:0 6px;text-align:left;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;font-size:13px}
th{color:#4a524e;font-weight:bold;border-bottom:1px solid #c9ccc3}
td.num,th.num{text-align:right}
tr.total td{font-weight:bold;border-top:1px solid #c9ccc3}
.dnb{font-size:13px;color:#4a524e;height:20px;margin:2px 0 8px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.bowling{margin-top:4px}
.result-line{margin:12px 0 0;font-size:17px;line-height:24px;font-weight:bold;background:#e3efe6;border-left:4px solid #1f3b2d;padding:6px 12px}
.actions{display:flex;gap:12px;margin:12px 0}
.comments{background:#fff;border:1px solid #d6d8d0;border-radius:4px;padding:8px 12px;width:820px}
.comments ul{list-style:none;margin:0;padding:0}
.comments li{padding:4px 0;border-top:1px solid #ecede8}
.comments li:first-child{border-top:0}
.comments .author{font-weight:bold;margin-right:8px}
.ball-log{margin-top:16px;width:568px;background:#fff;border:1px solid #d6d8d0;border-radius:4px;padding:8px 10px}
.deleted-banner{margin:16px 0;padding:12px 16px;background:#fbe9e9;border:1px solid #a4262c;color:#7d1d22;font-weight:bold;width:820px}
.notes-form{display:flex;flex-direction:column;gap:6px;width:720px;margin-top:10px}
.notes-form label{font-weight:bold;margin-top:6px}
.notes-form .note-name{width:400px;height:36px}
.notes-form .note-body{width:720px;height:240px;resize:none}
.notes-form .row{display:flex;gap:14px;align-items:center;margin-top:10px}
.save-status{display:inline-block;height:20px;min-width:300px;color:#1d5c3f;font-weight:bold}
.modal-backdrop{position:fixed;inset:0;background:rgba(20,28,24,0.45);display:flex;align-items:center;justify-content:center;z-index:10}
.modal-backdrop[hidden]{display:none}
.modal{width:440px;background:#fff;border-radius:6px;padding:20px 24px}
.modal p{margin:0 0 18px;font-size:15px}
.modal .buttons{display:flex;gap:12px;justify-content:flex-end}
.cookie-backdrop{position:fixed;inset:0;background:rgba(20,28,24,0.35);z-index:20}
.cookie-backdrop[hidden]{display:none}
.cookie-panel{position:absolute;left:0;right:0;bottom:0;height:330px;background:#fff;border-top:4px solid #1f3b2d;padding:22px 60px}
.cookie-panel p{width:820px;margin:0 0 12px}
.cookie-panel .buttons{display:flex;gap:14px;margin-top:18px}
.spinner-box{display:flex;align-items:center;gap:12px;width:240px;height:48px;margin-top:20px;color:#4a524e}
.spinner{width:28px;height:28px;border:4px solid #c9ccc3;border-top-color:#1f3b2d;border-radius:50%;animation:spin 0.8s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}
.scorecard-canvas{display:block;margin-top:10px;background:#fff;border:1px solid #d6d8d0}
.umpire-caret{position:fixed;width:2px;background:#1b1f1d;pointer-events:none;display:none;z-index:30}
.no-session{font-family:sans-serif;padding:40px}
`;
