/*
 * The web app's only script (docs/dashboard.md, "Web app"). Served from this origin under a CSP
 * that allows no inline script. It sends forms as JSON to the session API (the CSRF rule: same
 * origin, JSON bodies only), shows each API error beside the field it names, keeps the overview
 * live over server-sent events and draws the charts with uPlot.
 */
(function () {
  'use strict';

  // ---- forms ---------------------------------------------------------------------------------

  /** The value of one control as its data-type says: number, boolean, json, or text; undefined to leave it out. */
  function valueOf(control) {
    var type = control.getAttribute('data-type');
    if (control.type === 'checkbox') return control.checked;
    var raw = control.value;
    if (raw === '') return control.getAttribute('data-empty') === 'null' ? null : undefined;
    if (type === 'number') return Number(raw);
    if (type === 'csv') return csvRows(control, raw);
    if (type === 'lines') return lineList(control, raw);
    if (type === 'json') {
      try {
        return JSON.parse(raw);
      } catch (error) {
        throw { field: control.name, message: 'is not valid JSON: ' + error.message };
      }
    }
    return raw;
  }

  /** Whether a control still holds what the page was rendered with. */
  function unchanged(control) {
    if (control.type === 'checkbox') return control.checked === control.defaultChecked;
    if (control.tagName === 'SELECT') {
      for (var i = 0; i < control.options.length; i++) {
        if (control.options[i].defaultSelected) return control.options[i].selected;
      }
      return control.selectedIndex <= 0;
    }
    return control.value === control.defaultValue;
  }

  /**
   * A csv control's text as objects keyed by its data-columns (`rate:number` as a number): one a
   * line, blank lines and a first line naming the columns skipped. Each object's line number is
   * kept, so an API error on `rates.3.day` can name the line.
   */
  function csvRows(control, raw) {
    var columns = (control.getAttribute('data-columns') || '').split(',').map(function (column) {
      var parts = column.split(':');
      return { name: parts[0], number: parts[1] === 'number' };
    });
    var rows = [];
    var first = true;
    control.csvLines = [];
    raw.split(/\r?\n/).forEach(function (line, index) {
      var cells = line.split(',').map(function (cell) { return cell.trim(); });
      if (line.trim() === '') return;
      var header = first && cells[0] === columns[0].name;
      first = false;
      if (header) return;
      if (cells.length !== columns.length) {
        throw { field: control.name, message: 'line ' + (index + 1) + ': expected ' + columns.length + ' values (' + columns.map(function (c) { return c.name; }).join(',') + ')' };
      }
      var row = {};
      columns.forEach(function (column, at) {
        var cell = cells[at];
        if (column.number && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(cell)) {
          throw { field: control.name, message: 'line ' + (index + 1) + ': ' + column.name + ' is not a number' };
        }
        row[column.name] = column.number ? Number(cell) : cell;
      });
      rows.push(row);
      control.csvLines.push(index + 1);
    });
    return rows;
  }

  function bodyOf(form) {
    var body = {};
    var changedOnly = form.getAttribute('data-send') === 'changed';
    var groups = [];
    var controls = form.querySelectorAll('input[name], select[name], textarea[name]');
    for (var i = 0; i < controls.length; i++) {
      if (changedOnly && unchanged(controls[i]) && !groupChanged(form, controls[i].name)) continue;
      putValue(body, controls[i].name, valueOf(controls[i]), groups);
    }
    return emptyGroupsAsNull(body, groups);
  }

  function clearErrors(form) {
    var slots = form.querySelectorAll('[data-error-for]');
    for (var i = 0; i < slots.length; i++) {
      slots[i].textContent = '';
      slots[i].hidden = true;
    }
    var invalid = form.querySelectorAll('[aria-invalid]');
    for (var j = 0; j < invalid.length; j++) invalid[j].removeAttribute('aria-invalid');
  }

  /** The slot for `field` (rules.0.when.os goes beside `rules`), or the form's own slot. */
  function slotFor(form, field) {
    var parts = field.split('.');
    for (var n = parts.length; n > 0; n--) {
      var name = parts.slice(0, n).join('.');
      var slot = form.querySelector('[data-error-for="' + name.replace(/"/g, '') + '"]');
      if (slot) return { slot: slot, name: name };
    }
    return { slot: form.querySelector('[data-error-for=""]'), name: '' };
  }

  function showError(form, field, message) {
    var found = slotFor(form, field);
    if (!found.slot) return;
    var prefix = field && field !== found.name ? field + ': ' : '';
    var control = found.name ? form.querySelector('[name="' + found.name.replace(/"/g, '') + '"]') : null;
    // rates.3.day on a csv control: the line it came from.
    var item = control && control.csvLines && /^[^.]+\.(\d+)\.?(.*)$/.exec(field);
    if (item && control.csvLines[Number(item[1])]) prefix = 'line ' + control.csvLines[Number(item[1])] + (item[2] ? ', ' + item[2] : '') + ': ';
    found.slot.textContent = (found.slot.textContent ? found.slot.textContent + ' ' : '') + prefix + message;
    found.slot.hidden = false;
    if (control) control.setAttribute('aria-invalid', 'true');
  }

  // ---- messages people understand -----------------------------------------------------------

  /**
   * The validator's wording (TypeBox's "Expected string length greater or equal to 8") in the
   * words of the page: every message the script shows passes through here, so this is the one
   * place to change them. A message the server already wrote for people passes unchanged.
   */
  var VALIDATOR_WORDING = [
    [/^Expected required property$/, function () { return 'required'; }],
    [/^Expected string length greater or equal to 1$/, function () { return 'required'; }],
    [/^Expected string length greater or equal to (\d+)$/, function (m) { return 'at least ' + m[1] + ' characters'; }],
    [/^Expected string length less or equal to (\d+)$/, function (m) { return 'at most ' + m[1] + ' characters'; }],
    [/^Expected string to match 'email' format$/, function () { return 'not an email address'; }],
    [/^Expected string to match '(uri|url)' format$/, function () { return 'not a web address'; }],
    [/^Expected string to match '(date|date-time)' format$/, function () { return 'not a date'; }],
    [/^Expected string to match '.*' (pattern|format)$/, function () { return 'not in the expected form'; }],
    [/^Expected (integer|integer or number)$/, function () { return 'a whole number'; }],
    [/^Expected number( or integer)?$/, function () { return 'a number'; }],
    [/^Expected (integer|number) to be greater or equal to (-?[\d.]+)$/, function (m) { return m[2] + ' or more'; }],
    [/^Expected (integer|number) to be less or equal to (-?[\d.]+)$/, function (m) { return m[2] + ' or less'; }],
    [/^Expected (integer|number) to be greater than (-?[\d.]+)$/, function (m) { return 'more than ' + m[2]; }],
    [/^Expected boolean$/, function () { return 'yes or no'; }],
    [/^Expected one of: (.*)$/, function (m) { return 'one of ' + m[1].replace(/"/g, ''); }],
    [/^Expected union value$/, function () { return 'not an accepted value'; }],
    [/^Unexpected property$/, function () { return 'not a setting this form takes'; }],
    [/^Expected (string|object|array)$/, function () { return 'not the expected kind of value'; }],
  ];

  /** Short error strings of the API, as a person would say them; `action` is the path the form posts to. */
  function humanError(error, status, action) {
    if (status === 401 && action === '/login') return 'wrong email or password';
    if (status === 401) return 'your session has ended: sign in again';
    if (status === 403) return 'your role may not do this';
    if (status === 429) return 'too many tries: wait a minute and try again';
    if (error === 'email taken') return 'an account with this email already exists';
    if (status >= 500) return 'the server failed to answer: try again';
    return error;
  }

  function humanMessage(message) {
    for (var i = 0; i < VALIDATOR_WORDING.length; i++) {
      var match = VALIDATOR_WORDING[i][0].exec(message);
      if (match) return VALIDATOR_WORDING[i][1](match);
    }
    return message;
  }

  /** Whether the body sent holds the field at this path (`preview.image` inside `preview`). */
  function sentHas(sent, path) {
    return path.split('.').every(function (part) {
      if (sent === null || typeof sent !== 'object' || !(part in sent)) return false;
      sent = sent[part];
      return true;
    });
  }

  /**
   * Puts an API error where it belongs: every field error beside its field at once, the rest above
   * the button. A 409 such as "slug taken" goes beside the field it names.
   */
  function showApiError(form, status, payload, sent) {
    var error = payload && payload.error;
    var action = form.getAttribute('data-api');
    if (error && typeof error === 'object') {
      var fields = error.fieldErrors || {};
      Object.keys(fields).forEach(function (field) {
        // A field the form left out because it was empty: whatever the validator says, it is required.
        if (sent && !sentHas(sent, field) && form.querySelector('[name="' + field.replace(/"/g, '') + '"]')) {
          showError(form, field, 'required');
          return;
        }
        fields[field].forEach(function (message) {
          showError(form, field, humanMessage(message));
        });
      });
      (error.formErrors || []).forEach(function (message) {
        showError(form, '', humanMessage(message));
      });
    } else if (typeof error === 'string' && /^[a-z_]+ taken$/.test(error) && form.querySelector('[data-error-for="' + error.split(' ')[0] + '"]')) {
      // Said beside the field in words: "slug taken", "external id taken".
      showError(form, error.split(' ')[0], error.replace(/_/g, ' '));
    } else {
      showError(form, '', typeof error === 'string' ? humanError(error, status, action) : humanError('request failed (' + status + ')', status, action));
    }
    var first = form.querySelector('[aria-invalid="true"]');
    if (first) first.focus();
  }

  /** What a button's failed call says: a string error in words, a validation body as its messages. */
  function describeFailure(status, payload, action) {
    var error = payload && payload.error;
    if (typeof error === 'string') return humanError(error, status, action);
    if (error && typeof error === 'object') {
      var fields = error.fieldErrors || {};
      var parts = (error.formErrors || []).map(humanMessage);
      Object.keys(fields).forEach(function (field) {
        parts.push(field + ': ' + fields[field].map(humanMessage).join(', '));
      });
      if (parts.length > 0) return parts.join('; ');
    }
    return humanError('request failed (' + status + ')', status, action);
  }

  function request(method, url, body) {
    var init = { method: method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(function (response) {
      var type = response.headers.get('content-type') || '';
      var parsed = type.indexOf('application/json') === 0 ? response.json() : Promise.resolve(null);
      return parsed.then(function (payload) {
        return { ok: response.ok, status: response.status, payload: payload };
      });
    });
  }

  /** What a success does, from data-success: reload, redirect:<path>, show-json or show:<field> (fills the result); any other value only reveals the result's box. */
  function succeed(element, payload) {
    // For the sections below that act after any success (a list's refresh).
    document.dispatchEvent(new CustomEvent('api:success', { detail: { element: element, payload: payload } }));
    var success = element.getAttribute('data-success') || 'reload';
    // Another script of the page may show the answer its own way (the rules editor's route test).
    element.dispatchEvent(new CustomEvent('api-success', { bubbles: true, detail: payload }));
    if (success === 'reload') return window.location.reload();
    if (success.indexOf('redirect:') === 0) return window.location.assign(success.slice('redirect:'.length));
    var result = document.getElementById(element.getAttribute('data-result'));
    if (!result) return;
    if (success === 'show-json') {
      result.textContent = JSON.stringify(payload, null, 2);
    } else if (success.indexOf('show:') === 0) {
      result.textContent = payload ? String(payload[success.slice('show:'.length)]) : '';
    }
    result.hidden = false;
    var container = result.closest('[data-result-box]');
    if (container) container.hidden = false;
  }

  /** A new submission hides the previous answer: a failed route test never leaves the last decision showing. */
  function clearResult(element) {
    var result = document.getElementById(element.getAttribute('data-result'));
    if (!result) return;
    result.textContent = '';
    result.hidden = true;
    var container = result.closest('[data-result-box]');
    if (container) container.hidden = true;
  }

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.hasAttribute('data-api')) return;
    event.preventDefault();
    clearErrors(form);
    clearResult(form);
    var body;
    try {
      body = bodyOf(form);
    } catch (invalid) {
      showError(form, invalid.field, invalid.message);
      return;
    }
    var extra = form.getAttribute('data-body');
    if (extra) Object.assign(body, JSON.parse(extra));
    if (form.getAttribute('data-send') === 'changed' && Object.keys(body).length === 0) {
      showError(form, '', 'nothing changed: there is nothing to save');
      return;
    }
    var button = form.querySelector('[type="submit"]');
    if (button) button.disabled = true;
    request(form.getAttribute('data-method') || 'POST', form.getAttribute('data-api'), body)
      .then(function (answer) {
        if (answer.ok) succeed(form, answer.payload);
        else showApiError(form, answer.status, answer.payload, body);
      })
      .catch(function () {
        showError(form, '', 'the server could not be reached');
      })
      .then(function () {
        if (button) button.disabled = false;
      });
  });

  // "Insert example" beside a box: the example becomes the value only when asked for.
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-insert-example]');
    if (!button) return;
    var box = document.getElementById(button.getAttribute('data-insert-example'));
    if (!box) return;
    box.value = button.getAttribute('data-example') || '';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    box.focus();
  });

  // Buttons outside forms that make one call (pause, resume, revoke, sync): data-api, data-method, data-body.
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-api]');
    if (!button) return;
    if (button.hasAttribute('data-confirm') && !window.confirm(button.getAttribute('data-confirm'))) return;
    var box = document.getElementById(button.getAttribute('data-error'));
    if (box) box.hidden = true;
    button.disabled = true;
    var extra = button.getAttribute('data-body');
    request(button.getAttribute('data-method') || 'POST', button.getAttribute('data-api'), extra ? JSON.parse(extra) : undefined)
      .then(function (answer) {
        button.disabled = false;
        if (answer.ok) return succeed(button, answer.payload);
        if (box) {
          box.textContent = describeFailure(answer.status, answer.payload, button.getAttribute('data-api'));
          box.hidden = false;
        }
      })
      .catch(function () {
        button.disabled = false;
      });
  });

  // A file input with data-fills puts the file's text into that control, to be checked before it is sent.
  document.addEventListener('change', function (event) {
    var input = event.target;
    if (!input.hasAttribute || !input.hasAttribute('data-fills') || !input.files || !input.files[0]) return;
    var target = document.getElementById(input.getAttribute('data-fills'));
    if (!target) return;
    input.files[0].text().then(function (text) {
      target.value = text;
      target.focus();
    });
  });

  // ---- copy buttons (links page) ---------------------------------------------------------------

  // A button with data-copy puts that text on the clipboard and says so in its data-status element.
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-copy]');
    if (!button) return;
    var status = document.getElementById(button.getAttribute('data-status'));
    var say = function (text) {
      if (status) status.textContent = text;
    };
    if (!navigator.clipboard) return say('Copying is not available here: select the address instead.');
    navigator.clipboard.writeText(button.getAttribute('data-copy')).then(
      function () { say('Copied ' + button.getAttribute('data-copy')); },
      function () { say('The browser did not allow copying: select the address instead.'); },
    );
  });

  // ---- link page: lists one a line, objects from dotted names (docs/dashboard.md, "Link page") ----

  /** A lines control's non-blank lines, trimmed; each one's line number is kept for errors on `name.N`. */
  function lineList(control, raw) {
    var list = [];
    control.csvLines = [];
    raw.split(/\r?\n/).forEach(function (line, index) {
      if (line.trim() === '') return;
      list.push(line.trim());
      control.csvLines.push(index + 1);
    });
    return list.length === 0 && control.getAttribute('data-empty') === 'null' ? null : list;
  }

  /** `preview.title` goes into body.preview.title; the group exists even when every member is empty. */
  function putValue(body, name, value, groups) {
    var dot = name.indexOf('.');
    if (dot < 0) {
      if (value !== undefined) body[name] = value;
      return;
    }
    var group = name.slice(0, dot);
    if (groups.indexOf(group) < 0) {
      groups.push(group);
      body[group] = {};
    }
    if (value !== undefined) body[group][name.slice(dot + 1)] = value;
  }

  /** A group is sent whole (it replaces the stored object) as soon as one of its members changed. */
  function groupChanged(form, name) {
    var dot = name.indexOf('.');
    if (dot < 0) return false;
    var members = form.querySelectorAll('[name^="' + name.slice(0, dot + 1).replace(/"/g, '') + '"]');
    for (var i = 0; i < members.length; i++) if (!unchanged(members[i])) return true;
    return false;
  }

  /** A group whose members are all empty is sent as null: it removes the stored object. */
  function emptyGroupsAsNull(body, groups) {
    groups.forEach(function (group) {
      if (Object.keys(body[group]).length === 0) body[group] = null;
    });
    return body;
  }

  // ---- charts --------------------------------------------------------------------------------

  function readData(id) {
    var block = document.getElementById(id);
    return block ? JSON.parse(block.textContent) : null;
  }

  /** A colour of the stylesheet (app.css sets them for light and dark): the charts follow the page's scheme. */
  function colour(name) {
    return getComputedStyle(document.documentElement).getPropertyValue('--' + name).trim();
  }

  /** An axis in the page's colours: labels muted, grid and ticks the colour of the lines. */
  function axis(options) {
    var line = { stroke: colour('line'), width: 1 };
    return Object.assign({ stroke: colour('muted'), grid: line, ticks: line }, options || {});
  }

  function widthOf(element) {
    return Math.max(280, element.clientWidth);
  }

  /** Keeps a chart as wide as its box. */
  function fit(chart, element, height) {
    var resize = function () {
      chart.setSize({ width: widthOf(element), height: height });
    };
    window.addEventListener('resize', resize);
  }

  // ---- overview: live counters and the per-minute chart --------------------------------------

  function startOverview(root) {
    var chartBox = document.getElementById('minute-chart');
    var initial = readData('realtime-data');
    var chart = null;
    var series = function (data) {
      return [
        data.per_minute.map(function (m) {
          return Date.parse(m.minute) / 1000;
        }),
        data.per_minute.map(function (m) {
          return m.clicks;
        }),
        data.per_minute.map(function (m) {
          return m.installs;
        }),
        data.per_minute.map(function (m) {
          return m.conversions;
        }),
      ];
    };
    var render = function (data) {
      ['clicks', 'installs', 'conversions'].forEach(function (name) {
        var counter = root.querySelector('[data-counter="' + name + '"]');
        if (counter) counter.textContent = String(data[name]);
      });
      root.setAttribute('data-updated', String(Date.now()));
      if (!chartBox || !window.uPlot) return;
      if (!chart) {
        chart = new window.uPlot(
          {
            width: widthOf(chartBox),
            height: 220,
            scales: { y: { range: function (u, min, max) { return [0, Math.max(4, max)]; } } },
            series: [
              {},
              { label: 'Clicks', stroke: colour('series-0'), width: 2 },
              { label: 'Installs', stroke: colour('series-1'), width: 2 },
              { label: 'Conversions', stroke: colour('series-2'), width: 2 },
            ],
            axes: [axis(), axis({ size: 40 })],
          },
          series(data),
          chartBox,
        );
        fit(chart, chartBox, 220);
      } else {
        chart.setData(series(data));
      }
    };
    if (initial) render(initial);
    if (!window.EventSource) return;
    var status = root.querySelector('[data-stream-status]');
    var source = new EventSource('/api/dashboard/realtime');
    source.addEventListener('realtime', function (event) {
      render(JSON.parse(event.data));
      if (status) status.textContent = 'Live';
    });
    source.addEventListener('error', function () {
      if (status) status.textContent = 'Reconnecting…';
    });
    window.addEventListener('pagehide', function () {
      source.close();
    });
  }

  // ---- campaigns: spend against revenue, CPI and ROAS by day ---------------------------------

  function startCampaigns() {
    var box = document.getElementById('pivot-chart');
    var pivot = readData('pivot-data');
    if (!box || !pivot || !window.uPlot) return;
    // Every day of the window, those without a row at zero.
    var days = {};
    var keys = [];
    for (var time = Date.parse(pivot.from + 'T00:00:00Z'); time <= Date.parse(pivot.to + 'T00:00:00Z'); time += 86400000) {
      var key = new Date(time).toISOString().slice(0, 10);
      days[key] = { spend: 0, revenue: 0, installs: 0 };
      keys.push(key);
    }
    pivot.rows.forEach(function (row) {
      var day = days[row.day];
      if (!day) return;
      day.spend += row.spend;
      day.revenue += row.revenue;
      day.installs += row.installs;
    });
    var data = [
      keys.map(function (day) { return Date.parse(day + 'T00:00:00Z') / 1000; }),
      keys.map(function (day) { return days[day].spend; }),
      keys.map(function (day) { return days[day].revenue; }),
      keys.map(function (day) { return days[day].installs > 0 ? days[day].spend / days[day].installs : null; }),
      keys.map(function (day) { return days[day].spend > 0 ? days[day].revenue / days[day].spend : null; }),
    ];
    var chart = new window.uPlot(
      {
        width: widthOf(box),
        height: 260,
        series: [
          {},
          { label: 'Spend', stroke: colour('series-2'), width: 2, scale: 'money' },
          { label: 'Revenue', stroke: colour('series-1'), width: 2, scale: 'money' },
          { label: 'CPI', stroke: colour('series-0'), width: 2, dash: [6, 4], scale: 'money' },
          { label: 'ROAS', stroke: colour('series-3'), width: 2, scale: 'ratio' },
        ],
        axes: [axis(), axis({ scale: 'money', size: 50 }), axis({ scale: 'ratio', side: 1, size: 40, grid: { show: false } })],
      },
      data,
      box,
    );
    fit(chart, box, 260);
  }

  document.addEventListener('DOMContentLoaded', function () {
    var overview = document.querySelector('[data-overview]');
    if (overview) startOverview(overview);
    startCampaigns();
  });
})();

/*
 * ---- Members, apps and keys: lists that refresh, copy buttons --------------------------------
 * A form or button with data-refresh="<id>" fetches its page afresh after a success and swaps in
 * that element, so a new key or invite shows in its list without a reload (and the answer shown
 * once stays on screen). A button with data-copy="<id>" copies that element's text.
 */
(function () {
  'use strict';

  function refresh(id) {
    return fetch(window.location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (text === null) return;
        var fresh = new DOMParser().parseFromString(text, 'text/html').getElementById(id);
        var current = document.getElementById(id);
        if (fresh && current) current.replaceWith(document.importNode(fresh, true));
      });
  }

  document.addEventListener('api:success', function (event) {
    var id = event.detail.element.getAttribute('data-refresh');
    if (id) refresh(id);
  });

  function copied(id, text) {
    var status = document.querySelector('[data-copied-for="' + id.replace(/"/g, '') + '"]');
    if (status) status.textContent = text;
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-copy]');
    if (!button) return;
    var id = button.getAttribute('data-copy');
    var source = document.getElementById(id);
    if (!source) return;
    var text = source.textContent || '';
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { copied(id, 'Copied.'); }, function () { copied(id, 'Copy failed: select the text and copy it.'); });
    } else {
      copied(id, 'Select the text and copy it.');
    }
  });
})();
