/** The home page: a centred search box. */
export function renderHome(): string {
  return `<div class="home">
<h1>Bat &amp; Ball League</h1>
<p>Scorecards of the 2024 season</p>
<form class="search-form" action="/search" method="get" role="search">
<input class="text search-input" data-mark="search-box" type="text" name="q" placeholder="Search matches" autocomplete="off" aria-label="Search matches">
<button class="btn primary" data-mark="search-button" type="submit">Search</button>
</form>
</div>`;
}
