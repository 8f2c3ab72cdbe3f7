// umpire's own stand-in for MiniWoB++'s core.js: the same page protocol (WOB_* globals, core.startEpisode,
// core.startEpisodeReal, core.endEpisode, core.getUtterance, Math.seedrandom, the reward display and timer),
// written for umpire's tests. It is not MiniWoB's code.
var core = {};

// A seeded Math.random (mulberry32), so an episode is the same for the same seed.
Math.seedrandom = function (seed) {
  var a = 0;
  var text = String(seed);
  for (var i = 0; i < text.length; i++) a = (Math.imul(a, 31) + text.charCodeAt(i)) | 0;
  Math.random = function () {
    a = (a + 0x6d2b79f5) | 0;
    var t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

core.randi = function (min, max) {
  return Math.floor(Math.random() * (max - min) + min);
};
core.sample = function (list) {
  return list[core.randi(0, list.length)];
};

var WOB_REWARD_GLOBAL = 0;
var WOB_RAW_REWARD_GLOBAL = 0;
var WOB_REWARD_REASON = null;
var WOB_DONE_GLOBAL = false;
var WOB_EPISODE_ID = 0;
var WOB_TASK_READY = true;
core.EPISODE_MAX_TIME = 10000;
core.EP_TIMER = null;
core.ept0 = null;
core.cover_div = null;

core.createDisplay = function () {
  if (document.getElementById("reward-display")) return;
  var canvas = document.createElement("canvas");
  canvas.id = "click-canvas";
  canvas.width = 160;
  canvas.height = 210;
  document.body.appendChild(canvas);
  var display = document.createElement("div");
  display.id = "reward-display";
  display.innerHTML = "Last reward: <span id='reward-last'>-</span><br>Time left: <span id='timer-countdown'>-</span>";
  document.body.appendChild(display);
};

core.startEpisode = function () {
  core.createDisplay();
  if (core.cover_div === null) {
    core.cover_div = document.createElement("div");
    core.cover_div.id = "sync-task-cover";
    core.cover_div.innerHTML = "START";
    core.cover_div.onclick = function () {
      core.startEpisodeReal();
    };
    document.body.appendChild(core.cover_div);
  }
  core.cover_div.style.display = "block";
};

core.startEpisodeReal = function () {
  genProblem();
  WOB_DONE_GLOBAL = false;
  WOB_REWARD_GLOBAL = 0;
  WOB_RAW_REWARD_GLOBAL = 0;
  WOB_REWARD_REASON = null;
  core.cover_div.style.display = "none";
  core.ept0 = new Date().getTime();
  document.getElementById("timer-countdown").textContent = String(core.EPISODE_MAX_TIME / 1000) + "s";
  if (core.EP_TIMER !== null) clearTimeout(core.EP_TIMER);
  core.EP_TIMER = setTimeout(function () {
    core.endEpisode(-1, false, "timed out");
  }, core.EPISODE_MAX_TIME);
};

core.endEpisode = function (reward, timeProportional, reason) {
  if (core.EP_TIMER === null) return;
  clearTimeout(core.EP_TIMER);
  core.EP_TIMER = null;
  WOB_RAW_REWARD_GLOBAL = reward;
  WOB_REWARD_REASON = reason;
  if (timeProportional) reward = reward * Math.max(0, 1 - (new Date().getTime() - core.ept0) / core.EPISODE_MAX_TIME);
  WOB_REWARD_GLOBAL = reward;
  WOB_DONE_GLOBAL = true;
  WOB_EPISODE_ID++;
  document.getElementById("reward-last").textContent = reward.toFixed(2);
  core.startEpisode();
};

core.getUtterance = function () {
  return document.getElementById("query").textContent.replace(/\s+/g, " ").trim();
};
