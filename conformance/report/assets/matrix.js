(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('stguard-data').textContent);
  var readers = data.readers, grades = data.grades, cases = data.cases;
  var XMARK = ['', 'XFAIL', 'XPASS', 'listed with another grade'];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fails(cell) { return cell !== null && !grades[cell[0]].passes; }
  function failsUnexpectedly(cell) { return fails(cell) && cell[1] !== 1; }
  function gradeLabel(cell) {
    var g = grades[cell[0]];
    return g.name + (cell[1] ? ' (' + XMARK[cell[1]] + ')' : '');
  }
  function chip(cell) {
    var c = el('span', 'chip g' + cell[0] + (cell[1] === 1 ? ' xfail' : ''), grades[cell[0]].code);
    return c;
  }
  function tooltip(c, r) {
    var cell = c.cells[r];
    var lines = [readers[r].name + ': ' + gradeLabel(cell),
      c.id + '  (expected: ' + c.expected + ', reader said: ' + (cell[2] || 'nothing') + ')'];
    var who = readers[r].mode === 'writer' ? 'writer' : 'reader';
    if (cell[3]) lines.push(who + ' error: ' + cell[3]);
    if (cell[4]) lines.push('detail: ' + cell[4]);
    if (c.description) lines.push('', c.description);
    if (c.tags.length) lines.push('tags: ' + c.tags.join(', '));
    lines.push('', 'click for details');
    return lines.join('\n');
  }

  // ---- controls
  var controls = document.getElementById('controls');
  var gradeTotals = grades.map(function () { return 0; });
  cases.forEach(function (c) {
    c.cells.forEach(function (cell) { if (cell) gradeTotals[cell[0]] += 1; });
  });
  var gradeSet = el('fieldset');
  gradeSet.appendChild(el('legend', '', 'rows with a cell of grade'));
  var gradeBoxes = grades.map(function () { return null; });
  data.order.forEach(function (i) {
    var g = grades[i];
    var label = el('label');
    var box = el('input');
    box.type = 'checkbox';
    box.checked = true;
    label.appendChild(box);
    var c = el('span', 'chip g' + i, g.code);
    c.title = g.name + ': ' + g.meaning;
    label.appendChild(c);
    label.appendChild(el('span', 'count', gradeTotals[i]));
    gradeSet.appendChild(label);
    if (!gradeTotals[i]) label.style.opacity = '0.45';
    gradeBoxes[i] = box;
  });
  var allButton = el('button', '', 'all');
  var failButton = el('button', '', 'failures only');
  gradeSet.appendChild(allButton);
  gradeSet.appendChild(document.createTextNode(' '));
  gradeSet.appendChild(failButton);
  controls.appendChild(gradeSet);

  var readerSet = el('fieldset');
  readerSet.appendChild(el('legend', '', 'reader columns'));
  var readerBoxes = readers.map(function (r) {
    var label = el('label');
    var box = el('input');
    box.type = 'checkbox';
    box.checked = true;
    label.appendChild(box);
    label.appendChild(document.createTextNode(r.name));
    readerSet.appendChild(label);
    return box;
  });
  controls.appendChild(readerSet);

  var rowSet = el('fieldset');
  rowSet.appendChild(el('legend', '', 'rows'));
  var modeSelect = el('select');
  [['all', 'all cases'], ['fail', 'some shown reader fails'],
   ['unexpected', 'some shown reader fails, not XFAIL'],
   ['disagree', 'shown readers disagree on the verdict']].forEach(function (o) {
    var opt = el('option', '', o[1]);
    opt.value = o[0];
    modeSelect.appendChild(opt);
  });
  rowSet.appendChild(modeSelect);
  rowSet.appendChild(document.createTextNode(' '));
  // Rows grouped by the case's group, or by the rules of docs/spec.md it
  // tests (a case then shows under each of its rules).
  var groupBy = el('select');
  [['group', 'by case group'], ['rule', 'by rule']].forEach(function (o) {
    var opt = el('option', '', o[1]);
    opt.value = o[0];
    groupBy.appendChild(opt);
  });
  rowSet.appendChild(groupBy);
  rowSet.appendChild(document.createTextNode(' '));
  var groupSelect = el('select');
  rowSet.appendChild(groupSelect);
  rowSet.appendChild(document.createTextNode(' '));
  var search = el('input');
  search.type = 'search';
  search.placeholder = 'case id or description contains';
  rowSet.appendChild(search);
  rowSet.appendChild(document.createTextNode(' '));
  var expandButton = el('button', '', 'expand all');
  var collapseButton = el('button', '', 'collapse all');
  rowSet.appendChild(expandButton);
  rowSet.appendChild(document.createTextNode(' '));
  rowSet.appendChild(collapseButton);
  controls.appendChild(rowSet);
  var status = el('span');
  status.id = 'status';
  controls.appendChild(status);

  // ---- matrix
  var table = document.getElementById('matrix');
  var headCells = [];
  var columns = [];
  var headRow = table.createTHead().insertRow();
  headRow.appendChild(el('th', '', 'case'));
  headRow.appendChild(el('th', '', 'expected'));
  readers.forEach(function (r, i) {
    var th = el('th', 'reader');
    th.appendChild(el('div', 'rname', r.name));
    th.appendChild(el('div', 'rver', r.skipped ? 'skipped' : (r.version || 'version unknown')));
    th.title = r.name + (r.version ? ' ' + r.version : '') + ' (' + r.mode + ')' +
        (r.skipped ? '\nskipped: ' + r.skip_reason : '');
    headRow.appendChild(th);
    headCells[i] = th;
  });
  headRow.appendChild(el('th', '', 'description'));

  var groups = [];
  function build() {
    while (table.tBodies.length) table.removeChild(table.tBodies[0]);
    columns = readers.map(function (r, i) { return [headCells[i]]; });
    groups = [];
    var byName = {};
    var byRule = groupBy.value === 'rule';
    groupSelect.replaceChildren();
    var anyGroup = el('option', '', byRule ? 'all rules' : 'all groups');
    anyGroup.value = '';
    groupSelect.appendChild(anyGroup);
    cases.forEach(function (c, index) {
      var keys = !byRule ? [c.group] : c.rules && c.rules.length ? c.rules : ['(no rule)'];
      keys.forEach(function (key) { addRow(c, index, key); });
    });
    if (!cases.length) {
      var none = table.createTBody().insertRow().insertCell();
      none.colSpan = readers.length + 3;
      none.className = 'empty';
      none.textContent = 'no results';
    }

    function addRow(c, index, key) {
      var g = byName[key];
      if (!g) {
        g = { name: key, rows: [], collapsed: false };
        byName[key] = g;
        groups.push(g);
        var opt = el('option', '', key);
        opt.value = key;
        groupSelect.appendChild(opt);
        g.tbody = table.createTBody();
        var head = g.tbody.insertRow();
        head.className = 'group';
        var name = head.insertCell();
        name.colSpan = 2;
        g.arrow = el('span', 'arrow', '\u25be');
        name.appendChild(g.arrow);
        name.appendChild(document.createTextNode(key));
        g.count = el('span', 'gcount');
        name.appendChild(g.count);
        g.sums = readers.map(function (r, i) {
          var td = head.insertCell();
          td.className = 'gsum';
          columns[i].push(td);
          return td;
        });
        head.insertCell();
        head.addEventListener('click', function () {
          g.collapsed = !g.collapsed;
          apply();
        });
      }
      var tr = g.tbody.insertRow();
      tr.className = 'case';
      tr.dataset.index = index;
      var id = tr.insertCell();
      id.className = 'cid';
      id.textContent = c.id;
      id.title = c.description;
      var exp = tr.insertCell();
      exp.className = 'exp ' + c.expected;
      exp.textContent = c.expected;
      c.cells.forEach(function (cell, i) {
        var td = tr.insertCell();
        td.dataset.reader = i;
        if (cell === null) {
          td.className = 'cell none';
          td.textContent = readers[i].skipped ? 'skipped' : '\u2014';
        } else {
          td.className = 'cell g' + cell[0] + (cell[1] === 1 ? ' xfail' : '');
          td.textContent = grades[cell[0]].code;
          if (cell[1] === 1) td.appendChild(el('sup', '', 'XF'));
          if (cell[1] === 2) td.appendChild(el('sup', '', 'XP'));
          td.title = tooltip(c, i);
        }
        columns[i].push(td);
      });
      var desc = tr.insertCell();
      desc.className = 'desc';
      desc.textContent = c.description;
      g.rows.push({ tr: tr, c: c });
    }
  }
  build();

  // ---- detail panel
  var detail = document.getElementById('detail');
  var selected = null;
  function closeDetail() {
    detail.hidden = true;
    if (selected) selected.classList.remove('selected');
    selected = null;
  }
  function showDetail(tr, readerIndex) {
    var c = cases[Number(tr.dataset.index)];
    if (selected) selected.classList.remove('selected');
    selected = tr;
    tr.classList.add('selected');
    detail.replaceChildren();
    var close = el('button', 'close', '\u00d7');
    close.title = 'close (Esc)';
    close.addEventListener('click', closeDetail);
    detail.appendChild(close);
    detail.appendChild(el('h3', '', c.id));
    detail.appendChild(el('p', 'meta', 'group ' + c.group +
        (c.rules && c.rules.length ? ' \u00b7 rules: ' + c.rules.join(', ') : '') +
        ' \u00b7 expected verdict: ' + c.expected +
        (c.tags.length ? ' \u00b7 tags: ' + c.tags.join(', ') : '')));
    if (c.description) detail.appendChild(el('p', '', c.description));
    readers.forEach(function (r, i) {
      var cell = c.cells[i];
      var box = el('div', 'dr' + (i === readerIndex ? ' sel' : ''));
      var head = el('div', 'drh');
      if (cell) {
        head.appendChild(chip(cell));
        head.appendChild(document.createTextNode(' ' + r.name + ' '));
        head.appendChild(el('span', 'sub', gradeLabel(cell) + ' \u00b7 said: ' + (cell[2] || 'nothing') +
            ' \u00b7 ' + cell[5] + ' ms'));
      } else {
        head.appendChild(document.createTextNode(r.name + ' '));
        head.appendChild(el('span', 'sub', r.skipped ? 'skipped: ' + r.skip_reason : 'no result'));
      }
      box.appendChild(head);
      if (cell && cell[3]) {
        box.appendChild(el('div', 'lbl', (r.mode === 'writer' ? "writer's" : "reader's") + ' error'));
        box.appendChild(el('pre', '', cell[3]));
      }
      if (cell && cell[4]) {
        box.appendChild(el('div', 'lbl', 'runner detail'));
        box.appendChild(el('pre', '', cell[4]));
      }
      detail.appendChild(box);
    });
    detail.hidden = false;
  }
  table.addEventListener('click', function (event) {
    var td = event.target.closest('td');
    if (!td) return;
    var tr = td.parentElement;
    if (!tr.classList.contains('case')) return;
    showDetail(tr, td.dataset.reader === undefined ? -1 : Number(td.dataset.reader));
  });
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape') closeDetail();
  });

  // ---- filtering
  function apply() {
    var text = search.value.trim().toLowerCase();
    var group = groupSelect.value;
    var mode = modeSelect.value;
    var gradeOn = gradeBoxes.map(function (b) { return b.checked; });
    var allGrades = gradeOn.every(Boolean);
    var shownColumns = readerBoxes.map(function (b) { return b.checked; });
    var total = 0;
    var shownCases = {};  // by index: a case shows under each of its rules
    groups.forEach(function (g) {
      var matched = 0;
      var failing = readers.map(function () { return 0; });
      g.rows.forEach(function (row) {
        var c = row.c;
        var ok = !group || g.name === group;
        if (ok && text) {
          ok = c.id.toLowerCase().indexOf(text) >= 0 || c.description.toLowerCase().indexOf(text) >= 0;
        }
        var shown = c.cells.filter(function (cell, i) { return shownColumns[i] && cell !== null; });
        if (ok && !allGrades) ok = shown.some(function (cell) { return gradeOn[cell[0]]; });
        if (ok && mode === 'fail') ok = shown.some(fails);
        if (ok && mode === 'unexpected') ok = shown.some(failsUnexpectedly);
        if (ok && mode === 'disagree') {
          ok = shown.some(function (cell) { return cell[2] !== shown[0][2]; });
        }
        if (ok) {
          matched += 1;
          if (!shownCases[row.tr.dataset.index]) {
            shownCases[row.tr.dataset.index] = true;
            total += 1;
          }
          c.cells.forEach(function (cell, i) { if (fails(cell)) failing[i] += 1; });
        }
        row.tr.hidden = !ok || g.collapsed;
      });
      g.tbody.hidden = matched === 0;
      g.arrow.textContent = g.collapsed ? '\u25b8' : '\u25be';
      g.count.textContent = matched === g.rows.length ? matched + ' cases'
                                                      : matched + ' of ' + g.rows.length + ' cases';
      g.sums.forEach(function (td, i) {
        td.textContent = readers[i].skipped ? '' : failing[i] ? failing[i] + ' failing' : 'ok';
        td.className = 'gsum' + (failing[i] ? ' bad' : '');
      });
    });
    columns.forEach(function (cells, i) {
      cells.forEach(function (cell) { cell.style.display = shownColumns[i] ? '' : 'none'; });
    });
    status.textContent = total + ' of ' + cases.length + ' cases shown';
  }
  [modeSelect, groupSelect].forEach(function (e) { e.addEventListener('change', apply); });
  groupBy.addEventListener('change', function () {
    closeDetail();
    build();
    apply();
  });
  search.addEventListener('input', apply);
  gradeBoxes.concat(readerBoxes).forEach(function (b) { b.addEventListener('change', apply); });
  allButton.addEventListener('click', function () {
    gradeBoxes.forEach(function (b) { b.checked = true; });
    apply();
  });
  failButton.addEventListener('click', function () {
    gradeBoxes.forEach(function (b, i) { b.checked = !grades[i].passes; });
    apply();
  });
  expandButton.addEventListener('click', function () {
    groups.forEach(function (g) { g.collapsed = false; });
    apply();
  });
  collapseButton.addEventListener('click', function () {
    groups.forEach(function (g) { g.collapsed = true; });
    apply();
  });
  apply();
})();
