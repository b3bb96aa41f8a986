/*
 * The parts of a rule's row in the rules editor (docs/dashboard.md, "Rules editor"): its
 * conditions as chips and its action. Each control edits the rule in place and says so through
 * `edits`: write() after a new value, changed(focus) after a new shape (the rows are drawn
 * again and the focus goes to `focus`). Every control has a label; nothing is built from HTML.
 */
(function () {
  'use strict';

  var model = window.RulesModel;

  var CONDITION_LABELS = { country: 'Country', region: 'Region', city: 'City', os: 'OS', ip_type: 'IP type', language: 'Language', in_app: 'In-app browser', params: 'Parameter', hours: 'Hours', weekdays: 'Weekdays' };
  var CONDITION_HINTS = { country: 'US, CA', region: 'Bavaria', city: 'Berlin, Munich', language: 'de, fr' };
  var CHOICE_LABELS = { ios: 'iOS', android: 'Android', desktop: 'Desktop', residential: 'Residential', mobile: 'Mobile', datacenter: 'Datacenter', mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };
  var ACTION_LABELS = { url: 'Send to a URL', store: 'Send to an app store', deep_link: 'Open the app (deep link)', variants: 'A/B variants', block: 'Refuse the visit' };
  var STATUS_LABELS = { 403: '403 Forbidden', 404: '404 Not Found', 410: '410 Gone' };

  /** An element with attributes (`text` sets its text) and children; never HTML from data. */
  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      var value = attributes[name];
      if (value === null || value === undefined || value === false) return;
      if (name === 'text') node.textContent = value;
      else if (name === 'value') node.value = value;
      else if (name === 'checked') node.checked = value;
      else node.setAttribute(name, value === true ? '' : String(value));
    });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }

  function setOwn(object, key, value) {
    Object.defineProperty(object, key, { value: value, enumerable: true, writable: true, configurable: true });
  }

  window.RulesRows = function (vocabulary, edits) {
    var write = edits.write;
    var changed = edits.changed;

    // ---- conditions as chips -----------------------------------------------------------------

    function conditionsPart(rule, index, label) {
      var chips = el('ul', { class: 'chips', 'aria-label': label + ': conditions' });
      Object.keys(rule.if).forEach(function (condition) {
        if (condition === 'params') {
          Object.keys(rule.if.params).forEach(function (param, at) {
            chips.appendChild(paramChip(rule, index, label, param, at));
          });
        } else {
          chips.appendChild(conditionChip(rule, index, label, condition));
        }
      });
      var add = el('select', { 'aria-label': label + ': add a condition', 'data-key': 'add-condition' }, [el('option', { value: '', text: 'Add a condition\u2026' })].concat(
        vocabulary.conditions
          .filter(function (condition) { return condition === 'params' || !(condition in rule.if); })
          .map(function (condition) { return el('option', { value: condition, text: CONDITION_LABELS[condition] }); }),
      ));
      add.addEventListener('change', function () {
        var condition = add.value;
        if (!condition) return;
        if (condition === 'params') {
          var params = rule.if.params || (rule.if.params = {});
          if (!Object.prototype.hasOwnProperty.call(params, '')) setOwn(params, '', ['*']);
        } else {
          rule.if[condition] = condition === 'in_app' ? true : condition === 'hours' ? { from: 9, to: 17, tz: 'UTC' } : [];
        }
        changed({ index: index, key: 'condition-' + condition });
      });
      return el('div', { class: 'rule-if' }, [el('span', { class: 'rule-word', text: Object.keys(rule.if).length ? 'If' : 'Every visit' }), chips, add]);
    }

    function removeButton(label, what, onRemove) {
      var node = el('button', { type: 'button', class: 'chip-remove', 'aria-label': label + ': remove the ' + what + ' condition', text: '\u00d7' });
      node.addEventListener('click', onRemove);
      return node;
    }

    function conditionChip(rule, index, label, condition) {
      var value = rule.if[condition];
      var name = CONDITION_LABELS[condition];
      var parts = [el('span', { class: 'chip-name', text: name })];
      var key = 'condition-' + condition;
      if (model.LIST_TEXT.indexOf(condition) >= 0) {
        var input = el('input', { 'data-key': key, value: model.listText(value), placeholder: CONDITION_HINTS[condition], 'aria-label': label + ': ' + name.toLowerCase() + ' values, comma-separated' });
        input.addEventListener('input', function () {
          var values = model.readListText(input.value);
          rule.if[condition] = condition === 'country' ? values.map(function (v) { return v.toUpperCase(); }) : condition === 'language' ? values.map(function (v) { return v.toLowerCase(); }) : values;
          write();
        });
        parts.push(input);
      } else if (condition === 'os' || condition === 'ip_type' || condition === 'weekdays') {
        var choices = { os: vocabulary.os, ip_type: vocabulary.ipTypes, weekdays: vocabulary.weekdays }[condition];
        var group = el('span', { class: 'chip-choices', role: 'group', 'aria-label': label + ': ' + name });
        choices.forEach(function (choice, at) {
          var box = el('input', { type: 'checkbox', checked: value.indexOf(choice) >= 0, 'data-key': at === 0 ? key : null });
          box.addEventListener('change', function () {
            var now = rule.if[condition];
            var where = now.indexOf(choice);
            if (box.checked && where < 0) now.push(choice);
            if (!box.checked && where >= 0) now.splice(where, 1);
            write();
          });
          group.appendChild(el('label', { class: 'chip-choice' }, [box, ' ' + CHOICE_LABELS[choice]]));
        });
        parts.push(group);
      } else if (condition === 'in_app') {
        var select = el('select', { 'data-key': key, 'aria-label': label + ': in-app browser' }, [
          el('option', { value: 'true', text: 'yes', selected: value === true }),
          el('option', { value: 'false', text: 'no', selected: value === false }),
        ]);
        select.value = String(value);
        select.addEventListener('change', function () {
          rule.if.in_app = select.value === 'true';
          write();
        });
        parts.push(select);
      } else if (condition === 'hours') {
        var hour = function (which, text) {
          var options = [];
          for (var h = 0; h < 24; h++) options.push(el('option', { value: h, text: String(h).padStart(2, '0') + ':00' }));
          var node = el('select', { 'data-key': which === 'from' ? key : null, 'aria-label': label + ': hours ' + text }, options);
          node.value = String(value[which]);
          node.addEventListener('change', function () {
            value[which] = Number(node.value);
            write();
          });
          return node;
        };
        var zone = el('input', { value: value.tz, class: 'chip-zone', 'aria-label': label + ': hours time zone', placeholder: 'Europe/Berlin' });
        zone.addEventListener('input', function () {
          value.tz = zone.value;
          write();
        });
        parts.push(hour('from', 'from'), ' to ', hour('to', 'to (not included)'), ' in ', zone);
      }
      parts.push(removeButton(label, name.toLowerCase(), function () {
        delete rule.if[condition];
        changed({ index: index, key: 'add-condition' });
      }));
      return el('li', { class: 'chip', 'data-condition': condition }, parts);
    }

    /** One chip a query parameter; together they are the rule's `params`, in the chips' order. */
    function paramChip(rule, index, label, param, at) {
      var params = rule.if.params;
      var nameBox = el('input', { 'data-key': at === 0 ? 'condition-params' : null, value: param, class: 'chip-param', placeholder: 'utm_source', 'aria-label': label + ': parameter name' });
      var valuesBox = el('input', { value: model.listText(params[param]), placeholder: 'news, mail (* any value)', 'aria-label': label + ': values of the parameter, comma-separated (* any value)' });
      var current = param;
      nameBox.addEventListener('input', function () {
        var next = nameBox.value;
        if (next !== current && Object.prototype.hasOwnProperty.call(params, next)) {
          nameBox.setAttribute('aria-invalid', 'true');
          return;
        }
        nameBox.removeAttribute('aria-invalid');
        // Renamed in place: the parameters keep their order.
        var entries = Object.keys(params).map(function (key) { return [key === current ? next : key, params[key]]; });
        Object.keys(params).forEach(function (key) { delete params[key]; });
        entries.forEach(function (entry) { setOwn(params, entry[0], entry[1]); });
        current = next;
        write();
      });
      valuesBox.addEventListener('input', function () {
        setOwn(params, current, model.readListText(valuesBox.value));
        write();
      });
      return el('li', { class: 'chip', 'data-condition': 'params' }, [
        el('span', { class: 'chip-name', text: 'Parameter' }),
        nameBox,
        ' is ',
        valuesBox,
        removeButton(label, 'parameter', function () {
          delete params[current];
          if (Object.keys(params).length === 0) delete rule.if.params;
          changed({ index: index, key: 'add-condition' });
        }),
      ]);
    }

    // ---- the action --------------------------------------------------------------------------

    function urlInput(label, text, key, value, onInput, placeholder) {
      var input = el('input', { type: 'url', 'data-key': key, value: value || '', placeholder: placeholder || 'https://', 'aria-label': label + ': ' + text });
      input.addEventListener('input', function () {
        onInput(input.value);
        write();
      });
      return input;
    }

    function actionPart(rule, index, label) {
      var kind = model.ACTIONS.filter(function (action) { return action in rule.then; })[0];
      var select = el('select', { 'data-key': 'action', 'aria-label': label + ': then' }, model.ACTIONS.map(function (action) {
        return el('option', { value: action, text: ACTION_LABELS[action] });
      }));
      select.value = kind;
      select.addEventListener('change', function () {
        var before = rule.then.url || rule.then.store || rule.then.deep_link || '';
        var next = select.value;
        rule.then = next === 'url' ? { url: before } : next === 'store' ? { store: before } : next === 'deep_link' ? { deep_link: '' } : next === 'variants' ? { variants: [{ url: before, weight: 50 }, { url: '', weight: 50 }] } : { block: 404 };
        changed({ index: index, key: 'action' });
      });
      var then = rule.then;
      var fields = el('div', { class: 'action-fields' });
      if (kind === 'url') fields.appendChild(urlInput(label, 'URL', 'target', then.url, function (v) { then.url = v; }));
      else if (kind === 'store') fields.appendChild(urlInput(label, 'store URL', 'target', then.store, function (v) { then.store = v; }, 'https://apps.apple.com/app/id123'));
      else if (kind === 'deep_link') {
        var deep = el('input', { 'data-key': 'target', value: then.deep_link, placeholder: 'myapp://product/42', 'aria-label': label + ': deep link' });
        deep.addEventListener('input', function () {
          then.deep_link = deep.value;
          write();
        });
        fields.appendChild(deep);
        fields.appendChild(urlInput(label, 'fallback URL without the app', 'deep-fallback', then.fallback, function (v) {
          if (v === '') delete then.fallback;
          else then.fallback = v;
        }, 'without the app: https://'));
      } else if (kind === 'variants') fields.appendChild(variantsPart(then, index, label));
      else {
        var status = el('select', { 'data-key': 'target', 'aria-label': label + ': refuse with' }, vocabulary.blockStatuses.map(function (code) {
          return el('option', { value: code, text: STATUS_LABELS[code] || String(code) });
        }));
        status.value = String(then.block);
        status.addEventListener('change', function () {
          then.block = Number(status.value);
          write();
        });
        fields.appendChild(status);
      }
      return el('div', { class: 'rule-then' }, [el('span', { class: 'rule-word', text: 'Then' }), select, fields]);
    }

    function variantsPart(then, index, label) {
      var variants = then.variants;
      var shares = [];
      // Each variant's share of the visits, kept current in place as the weights are typed.
      var showShares = function () {
        var total = variants.reduce(function (sum, v) { return sum + (Number(v.weight) || 0); }, 0);
        shares.forEach(function (share, at) {
          share.textContent = total > 0 ? Math.round((variants[at].weight / total) * 100) + ' %' : '';
        });
      };
      var rows = variants.map(function (variant, at) {
        var name = label + ', variant ' + (at + 1);
        var share = el('span', { class: 'muted small' });
        shares.push(share);
        var weight = el('input', { type: 'number', min: 1, max: vocabulary.maxWeight, step: 1, class: 'variant-weight', value: variant.weight, 'aria-label': name + ': weight' });
        weight.addEventListener('input', function () {
          variant.weight = weight.value === '' ? 0 : Number(weight.value);
          showShares();
          write();
        });
        var remove = el('button', { type: 'button', class: 'chip-remove', 'aria-label': 'Remove ' + name.toLowerCase(), 'aria-disabled': variants.length === 1 ? 'true' : null, text: '\u00d7' });
        remove.addEventListener('click', function () {
          if (variants.length === 1) return;
          variants.splice(at, 1);
          changed({ index: index, key: 'add-variant' });
        });
        return el('li', { class: 'variant' }, [urlInput(name, 'URL', 'variant-' + at, variant.url, function (v) { variant.url = v; }), weight, share, remove]);
      });
      showShares();
      var add = el('button', { type: 'button', class: 'secondary small-button', 'data-key': 'add-variant', 'aria-label': 'Add variant to ' + label.toLowerCase(), text: 'Add variant', 'aria-disabled': variants.length >= vocabulary.maxVariants ? 'true' : null });
      add.addEventListener('click', function () {
        if (variants.length >= vocabulary.maxVariants) return;
        variants.push({ url: '', weight: 50 });
        changed({ index: index, key: 'variant-' + (variants.length - 1) });
      });
      return el('div', {}, [el('ol', { class: 'variants' }, rows), add]);
    }

    return { el: el, setOwn: setOwn, conditions: conditionsPart, action: actionPart };
  };
})();
