// localTime writes d in the reader's time zone, in the words of
// htmlpage.FormatTime, naming the zone; every <time data-local> element's
// text (FormatTime's UTC, from the server) is rewritten with it.
var localTime = (function () {
  "use strict";
  var fmt = new Intl.DateTimeFormat(undefined, { weekday: "long", month: "long", day: "numeric", year: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short" });
  var local = function (d) { return fmt.format(d); };
  document.querySelectorAll("time[data-local]").forEach(function (el) {
    var d = new Date(el.getAttribute("datetime"));
    if (!isNaN(d)) el.textContent = local(d);
  });
  return local;
})();
